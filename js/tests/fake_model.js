import { expect } from "vitest";

// A stand-in for the anywidget model: get/set/on/off/save_changes, with change events fired on set
// (as Backbone does in the browser). `sent` records what save_changes would send to the kernel.

/**
 * @param {Record<string, any>} state
 */
export function fakeModel(state) {
  /** @type {Record<string, Set<Function>>} */
  const handlers = {};
  const model = {
    state,
    /** @type {Record<string, any>[]} */
    sent: [],
    /** @type {Record<string, any>} */
    pending: {},
    get: (/** @type {string} */ k) => state[k],
    set(/** @type {string} */ k, /** @type {any} */ v) {
      state[k] = v;
      model.pending[k] = v;
      for (const fn of handlers[`change:${k}`] ?? []) fn();
    },
    /** Simulate an update coming from the kernel. */
    receive(/** @type {Record<string, any>} */ changes) {
      for (const [k, v] of Object.entries(changes)) {
        state[k] = v;
        for (const fn of handlers[`change:${k}`] ?? []) fn();
      }
    },
    on(/** @type {string} */ e, /** @type {Function} */ fn) { (handlers[e] ??= new Set()).add(fn); },
    off(/** @type {string} */ e, /** @type {Function} */ fn) { handlers[e]?.delete(fn); },
    save_changes() { model.sent.push(model.pending); model.pending = {}; },
    listenerCount: () => Object.values(handlers).reduce((n, s) => n + s.size, 0),
  };
  return model;
}

export const EVIL = "<img src=x onerror=alert(1)>";

/** No user string became markup: no script, image or event-handler attribute under `el`.
 * @param {Element} el */
export function expectInert(el) {
  expect(el.querySelector("script")).toBeNull();
  expect(el.querySelector("img")).toBeNull();
  expect(el.querySelector("[onerror]")).toBeNull();
}
