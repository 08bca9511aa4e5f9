// Draggable (and keyboard-movable) separators between panes. Each splitter sets one CSS
// custom property on its container as a percentage, remembered in localStorage.

const STEP = 2; // percent per arrow key press
const MIN = 15;
const MAX = 85;

export function makeSplitter(splitter, container, property, fallback) {
  const vertical = splitter.getAttribute("aria-orientation") === "vertical"; // divides columns
  const key = `shokunin.split.${property}`;
  const clamp = (v) => Math.min(MAX, Math.max(MIN, v));

  const set = (percent) => {
    const value = clamp(percent);
    container.style.setProperty(property, `${value}%`);
    splitter.setAttribute("aria-valuenow", String(Math.round(value)));
    localStorage.setItem(key, String(value));
  };
  const current = () => Number(splitter.getAttribute("aria-valuenow"));

  splitter.setAttribute("aria-valuemin", String(MIN));
  splitter.setAttribute("aria-valuemax", String(MAX));
  set(Number(localStorage.getItem(key)) || fallback);

  splitter.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    splitter.setPointerCapture(event.pointerId);
    splitter.classList.add("dragging");
    const move = (e) => {
      const box = container.getBoundingClientRect();
      set(vertical ? ((e.clientX - box.left) / box.width) * 100 : ((e.clientY - box.top) / box.height) * 100);
    };
    const up = () => {
      splitter.classList.remove("dragging");
      splitter.removeEventListener("pointermove", move);
      splitter.removeEventListener("pointerup", up);
      splitter.removeEventListener("pointercancel", up);
    };
    splitter.addEventListener("pointermove", move);
    splitter.addEventListener("pointerup", up);
    splitter.addEventListener("pointercancel", up);
  });

  splitter.addEventListener("keydown", (event) => {
    const back = vertical ? "ArrowLeft" : "ArrowUp";
    const forward = vertical ? "ArrowRight" : "ArrowDown";
    const moves = { [back]: current() - STEP, [forward]: current() + STEP, Home: MIN, End: MAX };
    if (event.key in moves) {
      event.preventDefault();
      set(moves[event.key]);
    }
  });
}
