/**
 * The `next` parameter of the sign-in pages: where to go once signed in, a path on this console and
 * never another site. Browsers drop tab and newline from a URL and read `\` as `/` (WHATWG URL
 * parsing), so `/\t/evil`, `/\\evil` and `//evil` all name another host; the value is also checked
 * after percent-decoding, in case some hop decodes it once more. Anything doubtful is "/".
 */
const MAX_LENGTH = 2000;
/** Printable ASCII only: no control character, space or non-ASCII look-alike (`／`, `＼`). */
const PRINTABLE = /^[\x21-\x7e]*$/;

function plainPath(p: string): boolean {
  return PRINTABLE.test(p) && p.startsWith("/") && !p.startsWith("//") && !p.includes("\\");
}

export function safeNext(next: unknown): string {
  if (typeof next !== "string" || next.length > MAX_LENGTH || !plainPath(next)) return "/";
  // Every decoding of it must be a plain path too (`/%09/evil`, `/%2F%2Fevil`, `/%5Cevil`); more than
  // five layers of encoding is no link anyone made.
  for (let cur = next, layers = 0; ; layers++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(cur);
    } catch {
      return "/";
    }
    if (decoded === cur) break;
    if (layers === 5 || !plainPath(decoded)) return "/";
    cur = decoded;
  }
  // The browser's own reading: it must stay on this origin.
  const base = "http://console.invalid";
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return "/";
  }
  return url.origin === base ? next : "/";
}
