// The image pane: thumbnails of the agent's images, named by their file (a file the code
// saved) or "figure-<n>" (a figure shown inline, numbered in the thread); a click opens a
// lightbox (a modal <dialog>, so Esc closes it and focus returns to the thumbnail).

import { t } from "./i18n.js";

const MIME = { jpg: "image/jpeg", jpeg: "image/jpeg", svg: "image/svg+xml" };

export class ImageViewer {
  constructor(root, dialog) {
    this.grid = root.querySelector(".image-grid");
    this.empty = root.querySelector(".image-empty");
    this.dialog = dialog;
    this.figures = 0;
    this.big = dialog.querySelector("img");
    this.caption = dialog.querySelector(".lightbox-caption");
    dialog.querySelector(".lightbox-close").addEventListener("click", () => dialog.close());
    // A click on the backdrop (the dialog itself, outside the figure) closes too.
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) dialog.close();
    });
  }

  add({ content, format = "png", path }) {
    const type = MIME[format?.toLowerCase()] ?? `image/${format || "png"}`;
    const src = `data:${type};base64,${content}`;
    const name = path || `figure-${++this.figures}.${format}`;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "thumb";
    button.title = name;
    button.setAttribute("aria-label", `${t("images.open")}: ${name}`);
    const img = document.createElement("img");
    img.src = src;
    img.alt = name;
    const label = document.createElement("span");
    label.textContent = name;
    button.append(img, label);
    button.addEventListener("click", () => this.open(src, name));
    this.empty.hidden = true;
    this.grid.prepend(button);
  }

  clear() {
    this.figures = 0;
    this.grid.replaceChildren();
    this.empty.hidden = false;
  }

  open(src, name) {
    this.big.src = src;
    this.big.alt = name;
    this.caption.textContent = name;
    this.dialog.showModal();
  }
}
