import {
  abort,
  anHourAgo,
  createRollout,
  declareVerifiedStorage,
  EDITOR,
  expect,
  signInAs,
  test,
} from "./rollout-server.js";

// Each worker has its own console and store (rollout-server.ts); a spec aborts what it created.
// Every spec signs in as the operator (or the viewer) itself.
test.use({ signedIn: null });

test.beforeEach(async ({ context, baseURL, accounts }) => {
  await signInAs(context, baseURL!, accounts.operator);
});

test("plans from a recommendation: the declared storage fact, and the engine's exclusion with its reason", async ({
  page,
}) => {
  // The recorded fleet has no verified gate: the operator declares db-on's storage torn-write safe.
  await declareVerifiedStorage(page);
  await page.goto("/recommendations");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Recommendations");
  // Which rules fire on db-on depends on the recorded load; a plan link carries db-on when one does.
  const link = page
    .getByRole("link", { name: /^Plan a rollout/ })
    .and(page.locator('[href*="target=db-on"]'));
  if ((await link.count()) > 0) {
    await link.first().click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Plan a rollout");
    await expect(
      page.getByRole("table", { name: "Dry run" }).getByRole("row", { name: /db-on/ }),
    ).toBeVisible();
  } else {
    // Still gated (on this machine's ext4 without bigalloc the allocation check fails whatever is
    // declared): no plan is offered, and planning doublewrite OFF anyway lists db-on as excluded,
    // with the engine's reason and what would verify the gate.
    await page.goto("/rollouts/new?kind=doublewrite-off&target=db-on&rule=doublewrite-share-high");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Plan a rollout");
    const excluded = page
      .getByRole("region", { name: /^Excluded/ })
      .getByRole("listitem")
      .filter({ hasText: "db-on" });
    await expect(excluded).toContainText("safety gate not verified");
    await expect(excluded).toContainText("To verify:");
    await expect(page.getByRole("button", { name: "Create rollout" })).toBeDisabled();
  }
});

test("plans a rollout, sees the dry run and the field errors, creates it and approves its first wave", async ({
  page,
}) => {
  await page.goto(EDITOR);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Plan a rollout");
  await expect(page.getByRole("note").filter({ hasText: "Recorded data" })).toBeVisible();

  // The dry run: db-on in wave 0 with the untouched sibling db-off as its control.
  const dry = page.getByRole("table", { name: "Dry run" });
  await expect(dry.getByRole("row", { name: /db-on/ })).toContainText("→ fsync");
  await expect(dry.getByRole("row", { name: /db-on/ })).toContainText("restart");
  await expect(dry.getByRole("row", { name: /db-off/ })).toContainText("control");
  await expect(page.getByRole("region", { name: "Waves" })).toContainText(
    "Wave 0 (canary): db-on; control: db-off",
  );

  // A recomputed dry run with a field the engine refuses: the error sits on that field.
  await page.getByLabel("Bake time (minutes)").fill("0");
  await page.getByRole("button", { name: "Update the dry run" }).click();
  const bake = page.getByLabel("Bake time (minutes)");
  await expect(bake).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator(`#${await bake.getAttribute("aria-describedby")}`)).toHaveText("at least 1");
  await expect(page.getByRole("button", { name: "Create rollout" })).toBeDisabled();
  // No dry run while a field is wrong: the Instances box says so, not "see the exclusions below".
  await expect(page.getByTestId("instances-empty")).toContainText(
    "No dry run yet: fix the fields marked above",
  );
  await expect(page.getByRole("heading", { name: /^Excluded/ })).toHaveCount(0);
  await bake.fill("30");
  await page.getByRole("button", { name: "Update the dry run" }).click();
  await expect(page.getByLabel("Bake time (minutes)")).toHaveValue("30");

  // The action refuses a bad field the same way, keeping what was typed.
  await page.getByLabel("Instances per wave (at most)").fill("lots");
  await page.getByRole("button", { name: "Create rollout" }).click();
  const per = page.getByLabel("Instances per wave (at most)");
  await expect(per).toHaveAttribute("aria-invalid", "true");
  await expect(per).toHaveValue("lots");
  await expect(page.locator(`#${await per.getAttribute("aria-describedby")}`)).toHaveText(
    "a whole number in decimal digits",
  );
  await expect(per).toBeFocused();
  await per.fill("2");
  await page.getByLabel("Backup taken at (UTC)").fill(anHourAgo());
  await page.getByRole("button", { name: "Create rollout" }).click();
  await expect(page).toHaveURL(/\/rollouts\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "active");

  await page.getByRole("button", { name: "Approve wave 0" }).click();
  // The approve form goes once the wave is approved; the wave says who approved it.
  await expect(page.getByText(/^Approved .* by operator-/).first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve wave 0" })).toHaveCount(0);
  await abort(page);
});

// A refused step is recorded (a new version): the page is rendered again, so the pause right after it
// carries the version the refusal made, not a conflict with the operator's own refusal.
test("after approval: the reconciler's pre-wave gate (or why it waits), mark step done, pause, resume and abort", async ({
  page,
}) => {
  await createRollout(page, { backup: true });
  await page.getByRole("button", { name: "Approve wave 0" }).click();
  await expect(page.getByText(/^Approved .* by operator-/).first()).toBeVisible();
  // The console's reconciler (every 2 s here) takes up the approved wave without anyone asking: it
  // records the pre-wave gate, or, when it cannot observe the instances, the page says why the gate
  // waits. On the throwaway recording it is the latter: the gate's fresh facts and replication state
  // are queries the recording never made (the recorder keeps the fleet's own queries), so each pass
  // fails to observe and records nothing.
  const gate = page.getByTestId("last-gate");
  const problem = page.getByTestId("reconciler-problem");
  await expect(async () => {
    await page.reload();
    await expect(gate.or(problem).first()).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  if (await problem.isVisible()) {
    await expect(problem).toContainText("The reconciler could not move this rollout on its last pass");
    await expect(problem).toContainText("nothing was recorded");
    await expect(problem).toContainText("observations not fetched");
  } else {
    await expect(gate).toContainText("Pre-wave");
  }
  // "Mark step done" is offered only when the engine takes it (permittedCommands): after a passed
  // pre-wave gate. While the gate has not passed (no observation, or no replication data on this
  // recording), the step says what it waits for instead.
  const markDone = page.getByRole("button", { name: "Mark step done on db-on" });
  if (await markDone.isVisible()) {
    await markDone.click();
    await expect(page.getByText(/Step on db-on marked done/)).toBeVisible();
  } else {
    await expect(page.getByTestId("step-waits-db-on")).toContainText("pre-wave gate has passed");
  }

  await page.getByLabel("Why pause (kept in the audit)").fill("lag on orders");
  await page.getByRole("button", { name: "Pause" }).click();
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "paused");
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "active");
  await abort(page);
  await expect(page.getByTestId("rollout-timeline")).toContainText("lag on orders");
});

test("two operators acting on one rollout: the second gets a conflict naming the first, not a lost update", async ({
  page,
  browser,
  baseURL,
  accounts,
}) => {
  const path = await createRollout(page);
  await page.waitForTimeout(3000); // let the reconciler's pass after the create settle
  const other = await browser.newContext({ baseURL: baseURL! });
  await signInAs(other, baseURL!, accounts.operator);
  const second = await other.newPage();
  const version = /version (\d+) · id/;
  // Both operators look at the same version (a reconciler pass that records something may land
  // between two loads; one that changes nothing commits nothing).
  await expect(async () => {
    await page.goto(path);
    await second.goto(path);
    const v1 = version.exec((await page.getByText(version).textContent()) ?? "")?.[1];
    const v2 = version.exec((await second.getByText(version).textContent()) ?? "")?.[1];
    expect(v1).toBeDefined();
    expect(v2).toBe(v1);
  }).toPass({ timeout: 30_000 });

  await page.getByLabel("Why pause (kept in the audit)").fill("first writer");
  await page.getByRole("button", { name: "Pause" }).click();
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "paused");

  await second.getByLabel("Why abort (kept in the audit)").fill("second writer");
  await second.getByRole("button", { name: "Abort" }).click();
  const alert = second.getByRole("alert").filter({ hasText: "Not applied" });
  // The conflict names the last person who changed the rollout and what they did, even when the
  // console's reconciler recorded its bookkeeping after the pause.
  await expect(alert).toContainText(`changed by ${accounts.operator} (operator)`);
  await expect(alert).toContainText("(pause: Paused: first writer)");
  await expect(alert).not.toContainText("reconciler");
  await expect(alert).toContainText("it is now paused");
  await expect(alert).toContainText("Reload");
  // The first writer's pause stands; nothing of the second was applied.
  await second.reload();
  await expect(second.getByTestId("rollout-status")).toHaveAttribute("data-status", "paused");
  await expect(second.getByTestId("rollout-timeline")).not.toContainText("second writer");
  await other.close();
  await abort(page);
});

test("keyboard only: plan, update the dry run, create, and pause", async ({ page }) => {
  await page.goto(EDITOR);
  const tabTo = async (matches: (name: string) => boolean, limit = 300) => {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press("Tab");
      const name = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el) return "";
        const label = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
        return `${el.getAttribute("aria-label") ?? label ?? el.textContent ?? ""}|${el.getAttribute("href") ?? ""}`;
      });
      if (matches(name)) return;
    }
    throw new Error("never reached the element with Tab");
  };
  await tabTo((n) => n.startsWith("Bake time (minutes)"));
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type("45");
  await page.keyboard.press("Enter"); // the default button: Update the dry run
  await expect(page).toHaveURL(/bakeMinutes=45/);
  await expect(page.getByRole("table", { name: "Dry run" })).toBeVisible();
  await tabTo((n) => n.startsWith("Create rollout"));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/rollouts\/[0-9a-f-]{36}$/);
  await tabTo((n) => n.startsWith("Why pause"));
  await page.keyboard.type("keyboard pause");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Pause" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "paused");
  await abort(page);
});

test("a viewer sees no mutation control, and each action submitted with a viewer's session is refused", async ({
  page,
  context,
  baseURL,
  accounts,
}) => {
  // The operator's forms, rendered for the operator…
  await page.goto(EDITOR);
  await expect(page.getByRole("checkbox", { name: /db-on/ })).toBeChecked();
  // …submitted after the browser's session became the viewer's.
  await signInAs(context, baseURL!, accounts.viewer);
  await page.getByRole("button", { name: "Create rollout" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Not allowed" })).toHaveText(
    `Not allowed: createRollout needs the operator role; ${accounts.viewer} is viewer.`,
  );

  await signInAs(context, baseURL!, accounts.operator);
  const path = await createRollout(page);
  await signInAs(context, baseURL!, accounts.viewer);
  const refused = async (button: string, action: string, fill?: [string, string]) => {
    if (fill) await page.getByLabel(fill[0]).fill(fill[1]);
    await page.getByRole("button", { name: button }).click();
    await expect(page.getByRole("alert").filter({ hasText: `${action} needs` })).toHaveText(
      `Not allowed: ${action} needs the operator role; ${accounts.viewer} is viewer.`,
    );
  };
  await refused("Approve wave 0", "approveWave");
  // "Mark step done" is not offered before the pre-wave gate passes; the viewer's refusal of
  // markStepDone is held by apps/web/src/server/auth/permissions.test.ts (every action, every role).
  await refused("Pause", "pauseRollout", ["Why pause (kept in the audit)", "viewer"]);
  await refused("Abort", "abortRollout", ["Why abort (kept in the audit)", "viewer"]);

  // As the viewer: the rollout reads, with no control; the editor and the plan links are not theirs.
  await page.goto(path);
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "active");
  await expect(page.getByText("need the operator role")).toBeVisible();
  for (const name of ["Approve wave 0", "Pause", "Resume", "Abort", "Revert", "Mark step done on db-on"])
    await expect(page.getByRole("button", { name })).toHaveCount(0);
  await expect(page.getByTestId("rollout-timeline")).not.toContainText(accounts.viewer);
  await page.goto(EDITOR);
  await expect(
    page.getByRole("alert").filter({ hasText: "This page needs the operator role" }),
  ).toBeVisible();
  await page.goto("/recommendations");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Recommendations");
  await expect(page.getByRole("link", { name: /^Plan a rollout/ })).toHaveCount(0);

  // Resume, as the operator's paused page submitted by the viewer.
  await signInAs(context, baseURL!, accounts.operator);
  await page.goto(path);
  await page.getByLabel("Why pause (kept in the audit)").fill("for the resume check");
  await page.getByRole("button", { name: "Pause" }).click();
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "paused");
  await signInAs(context, baseURL!, accounts.viewer);
  await refused("Resume", "resumeRollout");
  await signInAs(context, baseURL!, accounts.operator);
  await page.goto(path);
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "paused");
  await abort(page);
});
