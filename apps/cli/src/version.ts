/** The CLI's version, printed by --version and stored in replay files. */
export const VERSION = "0.1.0";
