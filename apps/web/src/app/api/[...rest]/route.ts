import { noSuchRoute } from "../../../server/http.js";

/** Any other path under /api: a JSON 404 instead of the HTML page. */
export const GET = noSuchRoute;
export const HEAD = noSuchRoute;
export const POST = noSuchRoute;
export const PUT = noSuchRoute;
export const PATCH = noSuchRoute;
export const DELETE = noSuchRoute;
