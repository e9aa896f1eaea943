"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { type FormEvent, useEffect, useState } from "react";
import {
  addSaved,
  readSaved,
  removeSaved,
  SAVED_FILTERS_KEY,
  type SavedFilter,
  savedParams,
} from "../lib/saved-filters.js";

/**
 * Saved views of the fleet page (filters, sort and range), in this browser's localStorage: save the
 * current URL's view under a name, open or delete a saved one. Every control is a link, a labelled
 * input or a button, so it is all reachable from the keyboard.
 */
export function SavedFilters() {
  const search = useSearchParams();
  const [saved, setSaved] = useState<SavedFilter[] | null>(null);
  const [name, setName] = useState("");

  useEffect(() => {
    setSaved(readSaved(window.localStorage.getItem(SAVED_FILTERS_KEY)));
  }, []);

  const store = (next: SavedFilter[]) => {
    setSaved(next);
    try {
      window.localStorage.setItem(SAVED_FILTERS_KEY, JSON.stringify(next));
    } catch {
      // Storage full or refused (private mode): the list still holds for this page.
    }
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    store(addSaved(saved ?? [], name, savedParams(search.toString())));
    setName("");
  };

  return (
    <details className="saved-filters" data-testid="saved-filters">
      <summary>Saved views{saved && saved.length > 0 ? ` (${saved.length})` : ""}</summary>
      {saved && saved.length > 0 ? (
        <ul>
          {saved.map((s) => (
            <li key={s.name}>
              <Link href={s.params ? `/?${s.params}` : "/"}>{s.name}</Link>{" "}
              <span className="subtle">{s.params || "all instances"}</span>{" "}
              <button
                type="button"
                onClick={() => store(removeSaved(saved, s.name))}
                aria-label={`Delete ${s.name}`}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="subtle">None yet: set filters, sort or a range, then save the view.</p>
      )}
      <form onSubmit={save} className="controls-form">
        <label>
          Name{" "}
          <input type="text" value={name} onChange={(e) => setName(e.target.value)} maxLength={60} required />
        </label>
        <button type="submit" disabled={saved === null}>
          Save this view
        </button>
      </form>
    </details>
  );
}
