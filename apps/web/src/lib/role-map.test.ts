import { describe, expect, it } from "vitest";
import { parseRoleMap, roleFor, splitGroups } from "./role-map.js";

describe("parseRoleMap", () => {
  it.each([
    [
      "dba-admins=admin,dbas=operator,*=viewer",
      [
        ["dba-admins", "admin"],
        ["dbas", "operator"],
        ["*", "viewer"],
      ],
    ],
    [" dbas = operator , ", [["dbas", "operator"]]],
    ["cn=dbas=operator", [["cn=dbas", "operator"]]],
    ["/org/DBA Team=admin", [["/org/DBA Team", "admin"]]],
  ])("%j is valid", (text, entries) => {
    expect(parseRoleMap(text)).toEqual({ ok: true, map: new Map(entries as [string, string][]) });
  });

  it.each([
    ["", /lists no group=role entry/],
    [" , ,", /lists no group=role entry/],
    ["dbas", /"dbas" is not group=role/],
    ["=admin", /names no group/],
    ["dbas=root", /role "root" is not one of viewer, operator, admin/],
    ["dbas=Operator", /role "Operator" is not one of/],
    ["dbas=operator,dbas=admin", /group "dbas" is mapped twice/],
    ["*=viewer,*=admin", /group "\*" is mapped twice/],
    [`${"g".repeat(201)}=viewer`, /over 200 characters/],
    // An LDAP DN holds commas: its first part is read as an entry of its own and refused, never half-read.
    ["cn=dbas,ou=groups=operator", /"cn=dbas": role "dbas" is not one of/],
  ])("%j is refused", (text, error) => {
    const r = parseRoleMap(text);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error).toMatch(error);
  });
});

describe("roleFor", () => {
  const map = (text: string) => {
    const r = parseRoleMap(text);
    if (!r.ok) throw new Error(r.error);
    return r.map;
  };
  it.each([
    ["dba-admins=admin,dbas=operator,*=viewer", ["dbas"], "operator"],
    ["dba-admins=admin,dbas=operator,*=viewer", ["dbas", "dba-admins"], "admin"],
    ["dba-admins=admin,dbas=operator,*=viewer", ["dba-admins", "dbas"], "admin"],
    ["dba-admins=admin,dbas=operator,*=viewer", [], "viewer"],
    ["dba-admins=admin,dbas=operator,*=viewer", ["DBAS"], "viewer"],
    ["dbas=operator", ["everyone"], null],
    ["dbas=operator", [], null],
    ["*=operator,readers=viewer", ["readers"], "operator"],
  ])("%s with groups %j gives %s", (text, groups, role) => {
    expect(roleFor(map(text), groups)).toBe(role);
  });
});

describe("splitGroups", () => {
  it("splits a comma list, trimming and dropping empties", () => {
    expect(splitGroups(" dbas, ops ,,x")).toEqual(["dbas", "ops", "x"]);
    expect(splitGroups(null)).toEqual([]);
    expect(splitGroups("")).toEqual([]);
  });
});
