// Form fields generated from a schema: a tool's JSON-schema parameters ("try a tool") or
// its settings schema ({key: {type, label, default, min, max, step, options, secret}}, type
// one of string, text, secret, integer, number, boolean, select). Each field shows its own
// error under it.

import { t } from "./i18n.js";

let uid = 0;

function field(name, labelText, required, hint) {
  const wrap = document.createElement("div");
  wrap.className = "field";
  wrap.dataset.field = name;
  const label = document.createElement("label");
  label.htmlFor = `f${++uid}-${name}`;
  label.textContent = labelText;
  if (required) {
    const star = document.createElement("span");
    star.className = "required";
    star.textContent = " *";
    label.append(star);
  }
  wrap.append(label);
  const error = document.createElement("div");
  error.className = "field-error";
  error.setAttribute("role", "alert");
  const note = document.createElement("div");
  note.className = "field-hint";
  if (hint) note.textContent = hint;
  return { wrap, id: label.htmlFor, error, note };
}

function selectControl(spec) {
  const input = document.createElement("select");
  const options = spec.options ?? (spec.enum ?? []).map((value) => ({ value, label: String(value) }));
  // An argument enum may be left empty; a select setting always holds one of its options.
  const choices = spec.type === "select" ? options : [{ value: "", label: "—" }, ...options];
  for (const { value, label } of choices) {
    const option = document.createElement("option");
    option.value = value === "" ? "" : JSON.stringify(value);
    option.textContent = label ?? String(value);
    input.append(option);
  }
  return input;
}

function control(kind, id, spec) {
  let input;
  if (kind === "select") {
    input = selectControl(spec);
  } else if (kind === "json" || kind === "text") {
    input = document.createElement("textarea");
    input.rows = kind === "json" ? 4 : 3;
    if (kind === "json") {
      input.spellcheck = false;
      input.className = "mono";
      input.dataset.i18nPlaceholder = "tools.jsonHint";
      input.placeholder = t("tools.jsonHint");
    }
  } else {
    input = document.createElement("input");
    input.type = { boolean: "checkbox", integer: "number", number: "number", secret: "password" }[kind] ?? "text";
    if (kind === "integer" || kind === "number") input.step = String(spec.step ?? (kind === "integer" ? 1 : "any"));
    for (const [attr, keys] of [["min", ["min", "minimum"]], ["max", ["max", "maximum"]]]) {
      const bound = keys.map((key) => spec[key]).find((value) => value !== undefined);
      if (bound !== undefined && kind !== "secret") input[attr] = bound;
    }
  }
  input.id = id;
  input.name = id;
  return input;
}

/** The input kind: the settings types as they are; JSON-schema enums are selects, and
 *  arrays, objects and unions are typed as JSON. */
function kindOf(spec) {
  if (spec.enum || spec.type === "select") return "select";
  const type = Array.isArray(spec.type) ? null : spec.type;
  if (["string", "text", "secret", "integer", "number", "boolean"].includes(type)) return type;
  return "json";
}

function setValue(input, kind, value) {
  if (value === undefined || value === null) return;
  if (input.tagName === "SELECT") input.value = JSON.stringify(value);
  else if (kind === "boolean") input.checked = Boolean(value);
  else if (kind === "json") input.value = JSON.stringify(value, null, 2);
  else input.value = String(value);
}

/** Read one input; returns {value} or {skip} or {error}. */
function readValue(input, kind, required, spec) {
  if (kind === "boolean") return { value: input.checked };
  const raw = input.value.trim();
  if (!raw) return required ? { error: t("tools.required") } : { skip: true };
  if (input.tagName === "SELECT") return { value: JSON.parse(raw) };
  // A secret may be a number (an integer PIN): typed as its declared type.
  const numeric = kind === "integer" || kind === "number" || (kind === "secret" && ["integer", "number"].includes(spec.type));
  if (numeric) {
    const n = Number(raw);
    return Number.isFinite(n) ? { value: n } : { error: t("tools.badJson") };
  }
  if (kind === "json") {
    try {
      return { value: JSON.parse(raw) };
    } catch {
      return { error: t("tools.badJson") };
    }
  }
  return { value: input.value };
}

class SchemaForm {
  constructor() {
    this.element = document.createElement("div");
    this.element.className = "schema-form";
    this.fields = new Map(); // name -> {input, kind, spec, required, error, wrap}
  }

  add(name, labelText, spec, { kind = kindOf(spec), required = false, hint = "", value } = {}) {
    const parts = field(name, labelText, required, hint);
    const input = control(kind, parts.id, spec);
    setValue(input, kind, value);
    if (kind === "boolean") parts.wrap.classList.add("checkbox");
    parts.wrap.append(input, parts.note, parts.error);
    this.element.append(parts.wrap);
    this.fields.set(name, { input, kind, spec, required, ...parts });
    return this.fields.get(name);
  }

  showErrors(errors = {}) {
    for (const [name, f] of this.fields) {
      f.error.textContent = errors[name] ?? "";
      f.wrap.classList.toggle("invalid", Boolean(errors[name]));
    }
  }

  /** {values, errors}: errors per field name when something cannot be read. */
  read() {
    const values = {};
    const errors = {};
    for (const [name, f] of this.fields) {
      const result = readValue(f.input, f.kind, f.required, f.spec);
      if (result.error) errors[name] = result.error;
      else if (!result.skip) values[name] = result.value;
    }
    this.showErrors(errors);
    return { values, errors };
  }
}

/** The arguments form for a tool declaration's JSON-schema parameters. */
export function argumentsForm(parameters = {}) {
  const form = new SchemaForm();
  const required = new Set(parameters.required ?? []);
  for (const [name, spec] of Object.entries(parameters.properties ?? {})) {
    form.add(name, name, spec, { required: required.has(name), hint: spec.description ?? "", value: spec.default });
  }
  return form;
}

/** The settings form; a secret is a password input that never shows the stored value:
 *  left empty it is sent back as the mask, which keeps what is stored. */
export function settingsForm(schema, values, mask) {
  const form = new SchemaForm();
  for (const [key, spec] of Object.entries(schema)) {
    if (spec.secret) {
      const isSet = spec.is_set ?? values[key] === mask;
      const f = form.add(key, spec.label ?? key, spec, { kind: "secret", hint: spec.description ?? "" });
      f.input.autocomplete = "new-password";
      f.input.dataset.i18nPlaceholder = "tools.secretHint";
      f.input.placeholder = t("tools.secretHint");
      const badge = document.createElement("span");
      badge.className = `secret-badge ${isSet ? "set" : "unset"}`;
      badge.dataset.i18n = isSet ? "tools.secretSet" : "tools.secretUnset";
      badge.textContent = t(badge.dataset.i18n);
      f.wrap.querySelector("label").append(" ", badge);
    } else {
      form.add(key, spec.label ?? key, spec, { hint: spec.description ?? "", value: values[key] ?? spec.default });
    }
  }
  const read = form.read.bind(form);
  form.read = () => {
    const result = read();
    for (const [key, spec] of Object.entries(schema)) {
      if (spec.secret && !(key in result.values)) result.values[key] = mask;
    }
    return result;
  };
  return form;
}
