import { base } from "../../vitest.base.ts";

export default base;
