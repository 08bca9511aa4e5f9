// A tool's TOOL_ICON as a DOM node: an emoji or short text, an image URL, or an inline <svg>.
// An SVG comes from a tool folder, so it is rebuilt from an allow-list: only drawing elements
// survive (no script, foreignObject, a, image, animate/set), no on* handler, no href other than
// a "#fragment" inside the icon, no url(...) pointing outside it.

const SVG_NS = "http://www.w3.org/2000/svg";
const XLINK_NS = "http://www.w3.org/1999/xlink";
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";
const ELEMENTS = new Set([
  "svg", "g", "path", "circle", "ellipse", "line", "polyline", "polygon", "rect", "text", "tspan",
  "title", "desc", "defs", "lineargradient", "radialgradient", "stop", "clippath", "mask",
  "symbol", "use", "pattern", "marker",
]);
const FALLBACK = "🔧";
const IMAGE_URL = /^(https:\/\/|http:\/\/|data:image\/(png|gif|jpeg|webp|svg\+xml)[;,])/i;
const SVG_TEXT = /^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i;

/** Only references inside the icon: "#id" or url(#id). */
function safeReference(value) {
  const text = value.trim();
  return text.startsWith("#") && !/[\s"'()]/.test(text);
}

function safeStyle(value) {
  // url(...) may only name a fragment; no legacy script hooks.
  const urls = [...value.matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)/gi)].map((m) => m[2]);
  return urls.every(safeReference) && !/expression\s*\(|javascript:|@import|behavior\s*:/i.test(value);
}

function keepAttribute(attr) {
  const name = attr.localName.toLowerCase();
  const value = attr.value;
  if (name.startsWith("on")) return false;
  if (attr.namespaceURI && ![XLINK_NS, XMLNS_NS].includes(attr.namespaceURI)) return false;
  if (name === "href") return safeReference(value);
  if (/^\s*(javascript|vbscript|data):/i.test(value)) return false;
  if (name === "style" || /url\(/i.test(value)) return safeStyle(value);
  return true;
}

function cleanAttributes(node) {
  for (const attr of [...node.attributes]) {
    if (!keepAttribute(attr)) node.removeAttributeNode(attr);
  }
}

function clean(node) {
  for (const child of [...node.children]) {
    if (child.namespaceURI !== SVG_NS || !ELEMENTS.has(child.localName.toLowerCase())) child.remove();
    else clean(child);
  }
  cleanAttributes(node);
}

/** The SVG text as a clean <svg> element of this document, or null when it is not one. */
export function sanitizeSvg(text) {
  const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = parsed.documentElement;
  if (!root || root.namespaceURI !== SVG_NS || root.localName !== "svg") return null;
  if (parsed.getElementsByTagName("parsererror").length) return null;
  clean(root);
  const svg = document.importNode(root, true);
  // Sized by the icon box's font size; the box keeps any drawing inside it.
  svg.setAttribute("width", "1em");
  svg.setAttribute("height", "1em");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  return svg;
}

/** The node to put in an icon box for a tool's TOOL_ICON. */
export function iconContent(icon) {
  const text = (icon ?? "").trim();
  if (SVG_TEXT.test(text)) return sanitizeSvg(text) ?? document.createTextNode(FALLBACK);
  if (IMAGE_URL.test(text)) {
    const img = document.createElement("img");
    img.src = text;
    img.alt = "";
    img.referrerPolicy = "no-referrer";
    img.width = img.height = 24;
    img.className = "tool-icon-img";
    return img;
  }
  return document.createTextNode(text || FALLBACK);
}
