import { describe, expect, it } from "vitest";
import { actionRequestProblem, MAX_DEPTH } from "./action-request.js";

const ACTION = { "next-action": "60abc" };
const form = (fields: [string, string][]) => {
  const f = new FormData();
  for (const [k, v] of fields) f.append(k, v);
  return f;
};
const check = (headers: Record<string, string>, fields: [string, string][] | Error = []) =>
  actionRequestProblem(new Headers(headers), async () => {
    if (fields instanceof Error) throw fields;
    return form(fields);
  });
const multipart = { ...ACTION, "content-type": "multipart/form-data; boundary=x" };
const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

describe("actionRequestProblem", () => {
  it("accepts what React's client sends for (state, FormData), and a form posted without JavaScript", async () => {
    expect(
      await check(multipart, [
        ["0", '[{"status":"idle","message":"","fieldErrors":{},"note":"$$5 off","x":"$undefined"},"$K1"]'],
        ["_1_$ACTION_REF_3", ""],
        ["_1_$ACTION_3:0", '{"id":"60abc","bound":"$@1"}'],
        ["_1_id", "u1"],
        ["_1_role", "viewer"],
      ]),
    ).toBeNull();
    // React before 19.3 named the form's fields <n>_<name>.
    expect(
      await check(multipart, [
        ["0", '[{},"$Ka"]'],
        ["a_id", "u1"],
      ]),
    ).toBeNull();
    expect(
      await check({ "content-type": "multipart/form-data; boundary=x" }, [
        ["$ACTION_REF_1", ""],
        ["$ACTION_1:0", '{"id":"60abc","bound":"$@1"}'],
        ["$ACTION_1:1", '[{"status":"idle"}]'],
        ["$ACTION_KEY", "k0"],
        ["id", "u1"],
      ]),
    ).toBeNull();
    // Not a Server Action at all: Next renders the page as for a GET.
    expect(await check({ "content-type": "text/plain" })).toBeNull();
  });

  it.each([
    [
      "text/plain arguments",
      { ...ACTION, "content-type": "text/plain;charset=UTF-8" },
      [],
      "multipart/form-data",
    ],
    ["no content type", ACTION, [], "multipart/form-data"],
    ["a malformed multipart body", multipart, new Error("Unexpected end of form"), "not a well-formed form"],
    ["no field 0", multipart, [["1_id", "x"]], "field 0"],
    ["field 0 not JSON", multipart, [["0", "not json"]], "not JSON"],
    ["nesting 5,000 deep", multipart, [["0", deep(5000)]], `more than ${MAX_DEPTH} levels`],
    ["a $@5 reference", multipart, [["0", '["$@5","$K1"]']], '"$@5"'],
    ["a reference inside the state", multipart, [["0", '[{"a":"$K1"},"$K1"]']], '"$K1"'],
    ["empty []", multipart, [["0", "[]"]], "two arguments"],
    ["three arguments", multipart, [["0", '[{},{},"$K1"]']], "two arguments"],
    [
      "a field no argument owns",
      multipart,
      [
        ["0", '[{},"$K1"]'],
        ["2_id", "x"],
      ],
      '"2_id"',
    ],
    [
      "a form posted without its state",
      { "content-type": "multipart/form-data; boundary=x" },
      [["$ACTION_ID_60abc", ""]],
      "state",
    ],
    [
      "a form's bound arguments nested 5,000 deep",
      { "content-type": "application/x-www-form-urlencoded" },
      [["$ACTION_1:1", deep(5000)]],
      "levels deep",
    ],
  ] as const)("refuses %s", async (_what, headers, fields, says) => {
    const problem = await check(
      headers as Record<string, string>,
      fields instanceof Error ? fields : (fields as unknown as [string, string][]),
    );
    expect(problem).toContain(says);
  });
});
