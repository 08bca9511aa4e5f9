// The map pane: a floor plan on a canvas with the agent's display commands drawn over it
// (seed 000: map, highlight_room, arrow, clear_arrows, clear_map), and the legacy
// {points, description} form plotted on a plain canvas.

import { currentLang, t } from "./i18n.js";

const ASSETS = "/api/map/assets/";
const HIGHLIGHT = "#0066ff";
const PAD = 8;

const clamp = (value, lo, hi) => Math.min(hi, Math.max(lo, value));

/** Arrows and bitmaps on a room: 40% of its smaller side, at least 30 px, at most 80 px. */
const markerSize = (box) => clamp(0.4 * Math.min(box.w, box.h), 30, 80);

/** ``n`` marker spots in a room: a grid of equal cells as square as the room allows, each
 * marker at most its cell (and never above markerSize). */
function roomCells(box, n) {
  let best = null;
  for (let cols = 1; cols <= n; cols += 1) {
    const rows = Math.ceil(n / cols);
    const cell = Math.min(box.w / cols, box.h / rows);
    if (!best || cell > best.cell) best = { cols, rows, cell };
  }
  const { cols, rows } = best;
  const size = Math.min(markerSize(box), 0.85 * best.cell);
  const [cw, ch] = [box.w / cols, box.h / rows];
  return Array.from({ length: n }, (_, i) => ({
    x: box.x + cw * ((i % cols) + 0.5),
    y: box.y + ch * (Math.floor(i / cols) + 0.5),
    size: n === 1 ? markerSize(box) : size,
  }));
}

function loadImage(file) {
  const img = new Image();
  img.decoding = "async";
  img.src = ASSETS + encodeURIComponent(file);
  return img;
}

export class MapViewer {
  constructor(root) {
    this.canvas = root.querySelector("canvas");
    this.ctx = this.canvas.getContext("2d");
    this.tabs = root.querySelector(".floor-tabs");
    this.message = root.querySelector(".map-message");
    root.querySelector(".map-clear-arrows").addEventListener("click", () => this.clearArrows());
    root.querySelector(".map-clear").addEventListener("click", () => this.clearMap());

    this.definition = null;
    this.floorId = null;
    this.mode = "floor"; // or "points" for the legacy form
    this.images = new Map(); // asset file -> HTMLImageElement
    this.display = { floorId: null, rectangles: [], overlays: [] };
    this.highlighted = new Set();
    this.arrows = []; // {room, direction, floorId}
    this.points = null;

    new ResizeObserver(() => this.resize()).observe(this.canvas.parentElement);
    document.addEventListener("langchange", () => this.renderTabs());
  }

  // -- messages
  handle(message) {
    const content = message.content ?? {};
    switch (message.type) {
      case "map_definition":
        this.loadDefinition(content);
        return true;
      case "map":
        if (Array.isArray(content.points)) this.showPoints(content);
        else this.showDisplay(content);
        return true;
      case "highlight_room":
        this.highlight(content.rooms ?? []);
        return true;
      case "arrow":
        this.addArrow(content.room, content.direction);
        return true;
      case "clear_arrows":
        this.clearArrows();
        return true;
      case "clear_map":
        this.clearMap();
        return true;
      case "error":  // the server's map package failed to load: say so where the map would be
        if (message.code !== "map_error") return false;
        this.message.textContent = t("map.broken", { error: message.content });
        this.message.removeAttribute("data-i18n");
        this.message.classList.add("error-text");
        this.message.hidden = false;
        return true;
      default:
        return false;
    }
  }

  loadDefinition(definition) {
    this.definition = definition;
    for (const file of [...definition.floors.map((f) => f.floorImage), ...definition.bitmaps.map((b) => b.bitmapFile)]) {
      if (this.images.has(file)) continue;
      const img = loadImage(file);
      img.addEventListener("load", () => this.draw());
      img.addEventListener("error", () => console.warn(`map asset ${file} did not load`));
      this.images.set(file, img);
    }
    // A reconnect sends the definition again: keep the floor being looked at.
    if (!this.floor()) this.floorId = definition.floors[0]?.floorId ?? null;
    this.message.hidden = true;
    this.renderTabs();
    this.draw();
  }

  showDisplay(content) {
    if (this.floorOf(content.floorId)) this.setFloor(content.floorId);
    this.display = {
      floorId: content.floorId ?? this.floorId,
      rectangles: content.rectangles ?? [],
      overlays: content.overlays ?? [],
    };
    this.draw();
  }

  showPoints(content) {
    this.points = content;
    this.mode = "points";
    this.renderTabs();
    this.draw();
  }

  highlight(rooms) {
    this.highlighted = new Set(rooms);
    const floor = this.floorWithRoom(rooms[0]);
    if (floor) this.setFloor(floor.floorId);
    this.draw();
  }

  addArrow(room, direction) {
    const floor = this.floorWithRoom(room);
    if (!floor) {
      console.warn(`arrow for unknown room ${room}`);
      return;
    }
    this.arrows = this.arrows.filter((a) => !(a.room === room && a.direction === direction));
    this.arrows.push({ room, direction, floorId: floor.floorId });
    this.setFloor(floor.floorId);
    this.draw();
  }

  clearArrows() {
    this.arrows = [];
    this.draw();
  }

  clearMap() {
    this.display = { floorId: this.floorId, rectangles: [], overlays: [] };
    this.highlighted = new Set();
    this.points = null;
    this.mode = "floor";
    this.renderTabs();
    this.draw();
  }

  // -- floors
  floorOf(id) {
    return this.definition?.floors.find((f) => f.floorId === id) ?? null;
  }

  floor() {
    return this.floorOf(this.floorId);
  }

  floorWithRoom(name) {
    const floors = this.definition?.floors ?? [];
    const has = (f) => f.rectangles.some((r) => r.name === name);
    return (this.floor() && has(this.floor())) ? this.floor() : floors.find(has) ?? null;
  }

  setFloor(id) {
    if (id === this.floorId && this.mode === "floor") return;
    this.floorId = id;
    this.mode = "floor";
    this.renderTabs();
    this.draw();
  }

  renderTabs() {
    const floors = this.definition?.floors ?? [];
    this.tabs.replaceChildren(...floors.map((floor) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = currentLang() === "ja" ? floor.floorName || floor.floorId : floor.floorId;
      button.title = `${floor.floorId} — ${floor.floorName}`;
      button.dataset.floor = floor.floorId;
      button.setAttribute("aria-pressed", String(this.mode === "floor" && floor.floorId === this.floorId));
      button.addEventListener("click", () => this.setFloor(floor.floorId));
      return button;
    }));
    if (this.points) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = t("map.points");
      button.setAttribute("aria-pressed", String(this.mode === "points"));
      button.addEventListener("click", () => this.showPoints(this.points));
      this.tabs.append(button);
    }
  }

  // -- geometry (CSS pixels on the canvas)
  resize() {
    const box = this.canvas.parentElement.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.width = Math.max(1, Math.floor(box.width));
    this.height = Math.max(1, Math.floor(box.height));
    this.canvas.width = this.width * dpr;
    this.canvas.height = this.height * dpr;
    this.canvas.style.width = `${this.width}px`;
    this.canvas.style.height = `${this.height}px`;
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.draw();
  }

  /** Where the floor plan sits on the canvas, and the virtual -> pixel mapping. The
   * corners' px/py say where the virtual corners lie on the image (a surveyed area may
   * cover only part of it); without them, or before the image loads, the corners are the
   * image's. */
  frame(floor) {
    const img = this.images.get(floor.floorImage);
    const { topLeft: tl, bottomRight: br } = floor.coordinateSystem;
    const ready = img?.complete && img.naturalWidth > 0;
    const pixels = ready && [tl.px, tl.py, br.px, br.py].every(Number.isFinite);
    const iw = ready ? img.naturalWidth : Math.abs(br.x - tl.x);
    const ih = ready ? img.naturalHeight : Math.abs(br.y - tl.y);
    const [left, top, right, bottom] = pixels ? [tl.px, tl.py, br.px, br.py] : [0, 0, iw, ih];
    const scale = Math.min((this.width - 2 * PAD) / iw, (this.height - 2 * PAD) / ih);
    const w = iw * scale;
    const h = ih * scale;
    const x = (this.width - w) / 2;
    const y = (this.height - h) / 2;
    return {
      img: ready ? img : null, x, y, w, h,
      px: (vx) => x + (left + ((vx - tl.x) / (br.x - tl.x)) * (right - left)) * scale,
      py: (vy) => y + (top + ((vy - tl.y) / (br.y - tl.y)) * (bottom - top)) * scale,
    };
  }

  roomBox(floor, name, frame = this.frame(floor)) {
    const rect = floor.rectangles.find((r) => r.name === name);
    if (!rect) return null;
    const x1 = frame.px(rect.topLeft.x);
    const y1 = frame.py(rect.topLeft.y);
    const x2 = frame.px(rect.bottomRight.x);
    const y2 = frame.py(rect.bottomRight.y);
    return { x: Math.min(x1, x2), y: Math.min(y1, y2), w: Math.abs(x2 - x1), h: Math.abs(y2 - y1) };
  }

  /** Centre and size of an overlay or arrow at a position, or null if it cannot be placed. */
  place(floor, frame, position) {
    if (position?.type === "rectangle") {
      const box = this.roomBox(floor, position.name, frame);
      return box && { x: box.x + box.w / 2, y: box.y + box.h / 2, size: markerSize(box) };
    }
    if (position?.type === "coordinate") {
      return { x: frame.px(position.x), y: frame.py(position.y), size: 40 };
    }
    return null;
  }

  /** Where each marker of the floor goes: the overlays shown on it (by index) and its
   * arrows. Markers placed in one room share it in a grid of equal cells, in the order
   * they came, so none hides another; one alone sits at the room's centre. */
  markers(floor, frame) {
    const overlays = this.display.floorId === floor.floorId ? this.display.overlays : [];
    const marks = [
      ...overlays.map((overlay, index) => ({ key: `o${index}`, position: overlay.position })),
      ...this.arrows.filter((a) => a.floorId === floor.floorId)
        .map((a, index) => ({ key: `a${index}`, position: { type: "rectangle", name: a.room } })),
    ];
    const spots = new Map();
    const byRoom = new Map();
    for (const mark of marks) {
      if (mark.position?.type === "rectangle") {
        byRoom.set(mark.position.name, [...(byRoom.get(mark.position.name) ?? []), mark]);
      } else spots.set(mark.key, this.place(floor, frame, mark.position));
    }
    for (const [room, group] of byRoom) {
      const box = this.roomBox(floor, room, frame);
      const cells = box ? roomCells(box, group.length) : [];
      group.forEach((mark, i) => spots.set(mark.key, cells[i] ?? null));
    }
    return spots;
  }

  // -- drawing
  draw() {
    if (!this.width) return;
    const { ctx } = this;
    ctx.clearRect(0, 0, this.width, this.height);
    if (this.mode === "points" && this.points) this.drawPoints();
    else if (this.floor()) this.drawFloor(this.floor());
  }

  drawFloor(floor) {
    const { ctx } = this;
    const frame = this.frame(floor);
    if (frame.img) ctx.drawImage(frame.img, frame.x, frame.y, frame.w, frame.h);
    else {
      ctx.fillStyle = "#fff";
      ctx.fillRect(frame.x, frame.y, frame.w, frame.h);
    }
    if (this.display.floorId === floor.floorId) {
      for (const rect of this.display.rectangles) {
        const box = this.roomBox(floor, rect.name, frame);
        if (box) this.drawRoom(box, rect.name, rect.color ?? "#ff0000", rect.fillOpacity ?? 0.3, rect.strokeOpacity ?? 1, rect.showName !== false, false);
      }
    }
    for (const name of this.highlighted) {
      const box = this.roomBox(floor, name, frame);
      if (box) this.drawRoom(box, name, HIGHLIGHT, 0.25, 1, true, true);
    }
    const spots = this.markers(floor, frame);
    if (this.display.floorId === floor.floorId) {
      this.display.overlays.forEach((overlay, i) => this.drawOverlay(spots.get(`o${i}`), overlay));
    }
    this.arrows.filter((a) => a.floorId === floor.floorId).forEach((arrow, i) => {
      const spot = spots.get(`a${i}`);
      if (spot) this.drawArrow(spot, arrow.direction);
    });
  }

  drawRoom(box, name, color, fillOpacity, strokeOpacity, showName, emphasised) {
    const { ctx } = this;
    ctx.save();
    ctx.fillStyle = color;
    ctx.globalAlpha = fillOpacity;
    ctx.fillRect(box.x, box.y, box.w, box.h);
    ctx.globalAlpha = strokeOpacity;
    ctx.strokeStyle = color;
    ctx.lineWidth = emphasised ? 3 : 2;
    ctx.strokeRect(box.x + 1, box.y + 1, box.w - 2, box.h - 2);
    if (showName) {
      ctx.globalAlpha = 1;
      const size = emphasised ? clamp(box.h * 0.16, 13, 20) : clamp(box.h * 0.12, 11, 15);
      this.label(name, box.x + box.w / 2, box.y + box.h - size, size, color, emphasised ? "bold" : "600");
    }
    ctx.restore();
  }

  label(text, x, y, size, color, weight = "600") {
    const { ctx } = this;
    ctx.font = `${weight} ${size}px "Noto Sans JP", "Hiragino Sans", "Yu Gothic", sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.lineWidth = 3;
    ctx.strokeStyle = "rgba(255,255,255,0.9)";
    ctx.strokeText(text, x, y);
    ctx.fillStyle = color;
    ctx.fillText(text, x, y);
  }

  drawOverlay(spot, overlay) {
    if (!spot) return;
    if (overlay.type === "bitmap") {
      const bitmap = this.definition.bitmaps.find((b) => b.bitmapId === overlay.bitmapId);
      const img = bitmap && this.images.get(bitmap.bitmapFile);
      if (img?.complete && img.naturalWidth) {
        this.ctx.drawImage(img, spot.x - spot.size / 2, spot.y - spot.size / 2, spot.size, spot.size);
      }
    } else if (overlay.type === "text") {
      this.label(String(overlay.text ?? ""), spot.x, spot.y, Math.min(overlay.fontSize ?? 14, spot.size), overlay.color ?? "#000");
    }
  }

  drawArrow(spot, direction) {
    const bitmap = this.definition.bitmaps.find((b) => b.bitmapId === `arrow_${direction}`);
    const img = bitmap && this.images.get(bitmap.bitmapFile);
    const { x, y, size } = spot;
    if (img?.complete && img.naturalWidth) {
      this.ctx.drawImage(img, x - size / 2, y - size / 2, size, size);
      return;
    }
    // No bitmap in the catalogue: draw the arrow ourselves.
    const angle = { up: -Math.PI / 2, down: Math.PI / 2, left: Math.PI, right: 0 }[direction] ?? 0;
    const { ctx } = this;
    ctx.save();
    ctx.translate(x, y);
    ctx.rotate(angle);
    ctx.scale(size / 2, size / 2);
    ctx.beginPath();
    ctx.moveTo(1, 0);
    ctx.lineTo(0.1, -0.8);
    ctx.lineTo(0.1, -0.35);
    ctx.lineTo(-1, -0.35);
    ctx.lineTo(-1, 0.35);
    ctx.lineTo(0.1, 0.35);
    ctx.lineTo(0.1, 0.8);
    ctx.closePath();
    ctx.fillStyle = "#dc1e1e";
    ctx.fill();
    ctx.restore();
  }

  drawPoints() {
    const { ctx } = this;
    const points = this.points.points.filter((p) => Number.isFinite(p.lat) && Number.isFinite(p.lon));
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, this.width, this.height);
    const top = 36;
    const area = { x: 40, y: top, w: this.width - 60, h: this.height - top - 30 };
    ctx.strokeStyle = "#e2e6ee";
    ctx.lineWidth = 1;
    for (let i = 0; i <= 4; i += 1) {
      const gx = area.x + (area.w * i) / 4;
      const gy = area.y + (area.h * i) / 4;
      ctx.beginPath();
      ctx.moveTo(gx, area.y);
      ctx.lineTo(gx, area.y + area.h);
      ctx.moveTo(area.x, gy);
      ctx.lineTo(area.x + area.w, gy);
      ctx.stroke();
    }
    if (this.points.description) this.label(this.points.description, this.width / 2, 18, 14, "#1f2937");
    if (!points.length) return;
    const lons = points.map((p) => p.lon);
    const lats = points.map((p) => p.lat);
    const [minX, maxX, minY, maxY] = [Math.min(...lons), Math.max(...lons), Math.min(...lats), Math.max(...lats)];
    const spanX = maxX - minX || 1;
    const spanY = maxY - minY || 1;
    points.forEach((p, i) => {
      const x = area.x + ((p.lon - minX) / spanX) * area.w * 0.9 + area.w * 0.05;
      const y = area.y + (1 - (p.lat - minY) / spanY) * area.h * 0.9 + area.h * 0.05; // north up
      ctx.beginPath();
      ctx.arc(x, y, 6, 0, Math.PI * 2);
      ctx.fillStyle = "rgba(224, 54, 44, 0.9)";
      ctx.fill();
      this.label(p.name ?? p.label ?? String(i + 1), x, y - 14, 12, "#1f2937");
    });
  }

  /** What the map shows, for tests and debugging (positions in CSS pixels on the canvas). */
  state() {
    const floor = this.floor();
    const frame = floor && this.width ? this.frame(floor) : null;
    const boxOf = (name) => (frame ? this.roomBox(floor, name, frame) : null);
    const onFloor = this.display.floorId === this.floorId;
    const spots = frame ? this.markers(floor, frame) : new Map();
    const here = this.arrows.filter((a) => a.floorId === this.floorId);
    return {
      mode: this.mode,
      floorId: this.floorId,
      floors: (this.definition?.floors ?? []).map((f) => f.floorId),
      image: frame && { x: frame.x, y: frame.y, w: frame.w, h: frame.h },
      rectangles: onFloor ? this.display.rectangles.map((r) => ({ ...r, box: boxOf(r.name) })) : [],
      highlighted: [...this.highlighted],
      arrows: this.arrows.map((a) => ({ ...a, ...(spots.get(`a${here.indexOf(a)}`) ?? {}) })),
      overlays: onFloor ? this.display.overlays.map((o, i) => ({ ...o, at: spots.get(`o${i}`) ?? null })) : [],
      rooms: Object.fromEntries((floor?.rectangles ?? []).map((r) => [r.name, boxOf(r.name)])),
      points: this.points?.points ?? null,
    };
  }
}
