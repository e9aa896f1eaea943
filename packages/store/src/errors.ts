/** Every error the store throws on purpose extends StoreError; anything else is a bug or a driver error. */
export class StoreError extends Error {
  override name = "StoreError";
}

/** The store could not be opened: bad data directory, unreachable database, failed migration. */
export class StoreOpenError extends StoreError {
  override name = "StoreOpenError";
  constructor(
    /** Data directory path, or `host:port/database` for PostgreSQL (never the password). */
    readonly location: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The data directory is held by a live process (PGlite is single-process: a second opener corrupts it). */
export class StoreLockedError extends StoreOpenError {
  override name = "StoreLockedError";
  constructor(
    location: string,
    readonly pid: number,
    readonly lockPath: string,
    message: string,
  ) {
    super(location, message);
  }
}

/** PostgreSQL at DATABASE_URL did not accept a connection. */
export class StoreConnectionError extends StoreOpenError {
  override name = "StoreConnectionError";
}

/** The database's migration history does not match this build's migrations. */
export class MigrationError extends StoreOpenError {
  override name = "MigrationError";
}

export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `storageFacts.zfsRecordsizeBytes`. */
  path: string;
  message: string;
}

/** Input rejected before it reached the database; the message names every bad field. */
export class StoreValidationError extends StoreError {
  override name = "StoreValidationError";
  constructor(
    readonly operation: string,
    readonly issues: ValidationIssue[],
  ) {
    super(
      `${operation}: invalid input: ${issues.map((i) => `${i.path || "(input)"}: ${i.message}`).join("; ")}`,
    );
  }
}

export class NotFoundError extends StoreError {
  override name = "NotFoundError";
  constructor(
    readonly entity: string,
    readonly id: string,
  ) {
    super(`${entity} ${id} not found`);
  }
}

/** Who made the change a conflicting writer missed. */
export interface ConflictingChange {
  actor: string;
  at: Date;
  /** The latest event's type, e.g. `approve`, `state-changed`. */
  action: string | null;
}

/** Optimistic locking: someone else changed the row since the caller read it. */
export class VersionConflictError extends StoreError {
  override name = "VersionConflictError";
  constructor(
    readonly entity: string,
    readonly id: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
    readonly actualState: string,
    readonly changedBy?: ConflictingChange,
  ) {
    const who = changedBy
      ? `${changedBy.actor} at ${changedBy.at.toISOString()}${changedBy.action ? ` (${changedBy.action})` : ""}`
      : "someone else";
    super(
      `${entity} ${id} was changed by ${who}: expected version ${expectedVersion}, found version ${actualVersion} (state ${actualState}); reload and retry`,
    );
  }
}

/** An idempotency key sent again with a different command or request: refused, nothing written. */
export class IdempotencyKeyReuseError extends StoreError {
  override name = "IdempotencyKeyReuseError";
  constructor(
    readonly key: string,
    readonly storedCommand: string,
    readonly storedRolloutId: string,
  ) {
    super(
      `idempotency key ${key} was already used for another request (${storedCommand} on rollout ${storedRolloutId}); use a new key for a new command`,
    );
  }
}

/** The database refused or failed a statement; `cause` holds the driver's error. */
export class StoreQueryError extends StoreError {
  override name = "StoreQueryError";
  constructor(
    readonly operation: string,
    /** PostgreSQL SQLSTATE, e.g. 23514 check_violation; undefined for connection failures. */
    readonly sqlState: string | undefined,
    /** Violated constraint, when the database names one. */
    readonly constraint: string | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${message}`, options);
  }
}

/**
 * An instance's metadata changed after the writer read it: names who changed it, when, and which fields,
 * so the second writer can reload and redo their edit instead of silently undoing the first.
 */
export class MetadataConflictError extends StoreError {
  override name = "MetadataConflictError";
  constructor(
    readonly instance: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
    readonly changedBy: string,
    readonly changedAt: Date,
    readonly fields: readonly string[],
  ) {
    super(
      `${instance} was changed by ${changedBy} at ${changedAt.toISOString()}${fields.length ? ` (${fields.join(", ")})` : ""} after you loaded it (version ${expectedVersion}, now ${actualVersion}): reload and redo your edit`,
    );
  }
}
