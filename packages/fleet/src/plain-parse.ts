/**
 * A plain-loop stand-in for a zod schema's safeParse on input it accepts, for validating thousands of
 * objects of one schema (10,000 instances' facts): the schema's definition is walked once into closures
 * that check each value and build the copy zod would build (an object's keys in the schema's order, an
 * optional key present as undefined kept as undefined). It only vouches: wherever it is unsure, it says
 * so (undefined) and the caller runs zod, whose result or issues stand. Schemas with a node or check it
 * does not know (transforms, refinements, defaults, unions of anything but literals and enums) compile to
 * a parser that always defers to zod. A property test holds it to zod (plain-parse.test.ts).
 */
import type { z } from "zod";

/** Returns zod's output for `x` when it is sure zod accepts `x`; undefined when zod must decide. */
export type PlainParser<T> = (x: unknown) => T | undefined;

/** Marks "not vouched for" inside the compiled closures (undefined is a valid output). */
const NO = Symbol("no");
type Check = (x: unknown) => unknown;

const isPlainObject = (x: unknown): x is Record<string, unknown> => {
  if (typeof x !== "object" || x === null) return false;
  const p = Object.getPrototypeOf(x);
  return p === Object.prototype || p === null;
};

/** zod's definition of a node, as far as this file reads it. */
interface Def {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: Record<string, unknown> } }[];
  readonly shape?: Record<string, z.core.$ZodType>;
  readonly catchall?: z.core.$ZodType;
  readonly innerType?: z.core.$ZodType;
  readonly element?: z.core.$ZodType;
  readonly keyType?: z.core.$ZodType;
  readonly valueType?: z.core.$ZodType;
  readonly options?: readonly z.core.$ZodType[];
  readonly entries?: Record<string, string | number>;
  readonly values?: readonly unknown[];
  readonly mode?: string;
}

const defOf = (s: z.core.$ZodType): Def => s._zod.def as unknown as Def;

/** The values a literal or enum node allows; null for any other node. */
function allowed(s: z.core.$ZodType): unknown[] | null {
  const d = defOf(s);
  if (d.checks?.length) return null;
  if (d.type === "literal") return [...(d.values ?? [])];
  if (d.type === "enum") return Object.values(d.entries ?? {});
  return null;
}

/** The closure checking one node; null where this file does not know the node. */
function compile(s: z.core.$ZodType): Check | null {
  const d = defOf(s);
  const checks = d.checks ?? [];
  if (checks.length && d.type !== "string" && d.type !== "number") return null;
  switch (d.type) {
    case "string": {
      const tests: ((x: string) => boolean)[] = [];
      for (const c of checks) {
        const k = c._zod.def;
        if (k.check === "min_length" && typeof k.minimum === "number") {
          const min = k.minimum;
          tests.push((x) => x.length >= min);
        } else if (k.check === "string_format" && k.format === "regex" && k.pattern instanceof RegExp) {
          const re = k.pattern;
          tests.push((x) => {
            re.lastIndex = 0;
            return re.test(x);
          });
        } else return null;
      }
      return (x) => (typeof x === "string" && tests.every((t) => t(x)) ? x : NO);
    }
    case "number": {
      const tests: ((x: number) => boolean)[] = [];
      for (const c of checks) {
        const k = c._zod.def;
        const v = k.value;
        if (k.check === "number_format" && k.format === "safeint") tests.push(Number.isSafeInteger);
        else if (k.check === "greater_than" && typeof v === "number")
          tests.push(k.inclusive ? (x) => x >= v : (x) => x > v);
        else if (k.check === "less_than" && typeof v === "number")
          tests.push(k.inclusive ? (x) => x <= v : (x) => x < v);
        else return null;
      }
      return (x) => (typeof x === "number" && Number.isFinite(x) && tests.every((t) => t(x)) ? x : NO);
    }
    case "boolean":
      return (x) => (typeof x === "boolean" ? x : NO);
    case "literal":
    case "enum": {
      const values = allowed(s);
      if (!values) return null;
      const set = new Set(values);
      return (x) => (set.has(x) ? x : NO);
    }
    case "union": {
      // Only unions of literals and enums: whichever option matches, zod's output is the input.
      const values = (d.options ?? []).map(allowed);
      if (values.some((v) => v === null)) return null;
      const set = new Set(values.flat());
      return (x) => (set.has(x) ? x : NO);
    }
    case "optional":
    case "nullable": {
      const inner = d.innerType && compile(d.innerType);
      if (!inner) return null;
      const empty = d.type === "optional" ? undefined : null;
      return (x) => (x === empty ? x : inner(x));
    }
    case "array": {
      const element = d.element && compile(d.element);
      if (!element) return null;
      return (x) => {
        if (!Array.isArray(x)) return NO;
        const out: unknown[] = new Array(x.length);
        for (let i = 0; i < x.length; i++) {
          if (!(i in x)) return NO;
          const v = element(x[i]);
          if (v === NO) return NO;
          out[i] = v;
        }
        return out;
      };
    }
    case "record": {
      // The keys as they are (strings or enum members), in the input's order, as zod's generic path.
      const keys = d.keyType ? (defOf(d.keyType).type === "string" ? "any" : allowed(d.keyType)) : null;
      const value = d.valueType && compile(d.valueType);
      if (!keys || !value || d.mode === "loose") return null;
      // An exhaustive (not partial) enum record has to have every key: left to zod.
      if (keys !== "any" && !(d as { partial?: boolean }).partial) return null;
      const keySet = keys === "any" ? null : new Set(keys);
      return (x) => {
        if (!isPlainObject(x) || Object.getOwnPropertySymbols(x).length) return NO;
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(x)) {
          if (k === "__proto__" || (keySet && !keySet.has(k))) return NO;
          const v = value(x[k]);
          if (v === NO || v === undefined) return NO;
          out[k] = v;
        }
        return out;
      };
    }
    case "object": {
      if (!d.shape || !d.catchall || defOf(d.catchall).type !== "never") return null;
      const fields: { key: string; check: Check; optional: boolean }[] = [];
      for (const [key, child] of Object.entries(d.shape)) {
        const check = compile(child);
        const optin = child._zod.optin;
        const optout = child._zod.optout;
        if (!check || key === "__proto__" || (optin !== undefined && optin !== "optional")) return null;
        if (optin === "optional" && optout !== "optional") return null;
        fields.push({ key, check, optional: optin === "optional" });
      }
      const known = new Set(fields.map((f) => f.key));
      return (x) => {
        if (typeof x !== "object" || x === null || Array.isArray(x)) return NO;
        const input = x as Record<string, unknown>;
        for (const k in input) if (!known.has(k)) return NO;
        const out: Record<string, unknown> = {};
        for (const f of fields) {
          if (!(f.key in input)) {
            if (f.optional) continue;
            return NO;
          }
          const v = f.check(input[f.key]);
          if (v === NO) return NO;
          out[f.key] = v;
        }
        return out;
      };
    }
    default:
      return null;
  }
}

/** A PlainParser for `schema`; one that always defers to zod where the schema has what it does not know. */
export function plainParser<S extends z.ZodType>(schema: S): PlainParser<z.infer<S>> {
  const check = compile(schema);
  if (!check) return () => undefined;
  return (x) => {
    const v = check(x);
    return v === NO ? undefined : (v as z.infer<S>);
  };
}

/** Whether plainParser compiles `schema` (a test can say so: a parser that always defers is slow, not wrong). */
export function plainParserCompiles(schema: z.ZodType): boolean {
  return compile(schema) !== null;
}
