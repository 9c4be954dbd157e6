// @ts-check
// A form's state: the values typed (kept whatever the answer), the API's complaints by field
// (`details[].field`, e.g. `destination.host`), the rest of the failure, and a pending flag.
import { ApiError } from "./api.js";
import { useRef, useState } from "./html.js";

/**
 * @param {Record<string, any>} object
 * @param {string} path dotted
 */
export function getPath(object, path) {
  return path
    .split(".")
    .reduce(
      (value, key) => (value === undefined || value === null ? undefined : value[key]),
      /** @type {any} */ (object),
    );
}

/**
 * @param {Record<string, any>} object
 * @param {string} path dotted
 * @param {unknown} value
 * @returns {Record<string, any>} a copy with the value set
 */
export function setPath(object, path, value) {
  const [head = "", ...rest] = path.split(".");
  return { ...object, [head]: rest.length === 0 ? value : setPath(object[head] ?? {}, rest.join("."), value) };
}

/** @param {string} field @param {string} name */
const belongsTo = (field, name) => field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`);

/**
 * @template {Record<string, any>} T
 * @param {T} initial
 */
export function useForm(initial) {
  const [values, setValues] = useState(initial);
  const [failure, setFailure] = useState(/** @type {ApiError | undefined} */ (undefined));
  const [pending, setPending] = useState(false);
  /** Field names rendered in this form: complaints about them are shown beside them, the rest above Save. */
  const known = useRef(/** @type {Set<string>} */ (new Set()));
  const formRef = useRef(/** @type {HTMLFormElement | null} */ (null));
  const details = failure?.details ?? [];

  return {
    values,
    pending,
    failure,
    formRef,
    /** @param {string} name */
    get: (name) => getPath(values, name),
    /** @param {string} name @param {unknown} value */
    set: (name, value) => setValues((v) => /** @type {T} */ (setPath(v, name, value))),
    /** @param {Partial<T>} patch */
    merge: (patch) => setValues((v) => ({ ...v, ...patch })),
    /** @param {string} name */
    claim: (name) => known.current.add(name),
    /** @param {string} name */
    errorsFor: (name) => details.filter((d) => belongsTo(d.field, name)),
    unclaimed: () => details.filter((d) => ![...known.current].some((name) => belongsTo(d.field, name))),
    clearFailure: () => setFailure(undefined),
    /**
     * Shows a failure of another action on this form (e.g. Test connection) as a submit's would be:
     * beside the fields it names, the rest above the buttons.
     * @param {unknown} error
     */
    fail(error) {
      setFailure(
        error instanceof ApiError
          ? error
          : new ApiError("server", error instanceof Error ? error.message : String(error)),
      );
      requestAnimationFrame(() => focusFirstProblem(formRef.current));
    },
    /**
     * Runs the action with the values; a failure is kept for display and focus goes to the first field
     * it names (or to the form's alert). Resolves to the action's result, or undefined when it failed.
     * @template R
     * @param {(values: T) => Promise<R>} action
     * @returns {Promise<R | undefined>}
     */
    async submit(action) {
      setPending(true);
      setFailure(undefined);
      try {
        return await action(values);
      } catch (error) {
        const apiError =
          error instanceof ApiError
            ? error
            : new ApiError("server", error instanceof Error ? error.message : String(error));
        setFailure(apiError);
        requestAnimationFrame(() => focusFirstProblem(formRef.current));
        return undefined;
      } finally {
        setPending(false);
      }
    },
  };
}

/** @typedef {ReturnType<typeof useForm>} Form */

/** @param {HTMLElement | null} form */
function focusFirstProblem(form) {
  const target = form?.querySelector('[aria-invalid="true"]') ?? form?.querySelector(".form-alert");
  if (target instanceof HTMLElement) target.focus();
}
