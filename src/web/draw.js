"use strict";
// The boards of the hall screens (/screen) and the stream overlays
// (/overlay/BOARD), drawn as SVG from a board's public state (as
// published on MQTT): chess, English draughts and xiangqi, turned round on
// request (`flip`), with or without coordinates, the last move marked.
// Shared helpers for both pages follow.

const BC = {};

BC.esc = s => String(s).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));

BC.hms = s => {
  if (s == null) return "–";
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, x = s % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(x).padStart(2, "0");
};

// The board colours of each `theme` (light, dark squares).
BC.THEMES = {
  brown: ["#e9d8b4", "#b08a5e"],
  blue: ["#dee3e6", "#8ca2ad"],
  green: ["#eeeed2", "#769656"],
  grey: ["#e4e4e4", "#a0a0a0"],
};
BC.theme = name => BC.THEMES[name] || BC.THEMES.brown;

const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };

// A chess position: `fen`, the last move `uci`, from White's side unless
// `flip`, file and rank names on the edge squares when `coords`.
function chessSvg(fen, uci, o) {
  const [light, dark] = BC.theme(o.theme);
  const last = uci ? [uci.slice(0, 2), uci.slice(2, 4)] : [];
  const rows = (fen || "8/8/8/8/8/8/8/8").split(" ")[0].split("/");
  const at = {};
  rows.forEach((row, r) => {
    let f = 0;
    for (const c of row) {
      if (/\d/.test(c)) { f += +c; continue; }
      at["abcdefgh"[f] + (8 - r)] = c;
      f++;
    }
  });
  let svg = '<svg viewBox="0 0 8 8" class="bc-board chess" role="img" aria-label="chess board">';
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) {
    const file = o.flip ? 7 - x : x, rank = o.flip ? y : 7 - y;
    const sq = "abcdefgh"[file] + (rank + 1);
    const isLight = (file + rank) % 2 === 1;
    svg += `<rect x="${x}" y="${y}" width="1" height="1" fill="${isLight ? light : dark}"/>`;
    if (last.includes(sq)) svg += `<rect x="${x}" y="${y}" width="1" height="1" class="bc-last" data-sq="${sq}"/>`;
    if (o.coords) {
      const ink = isLight ? dark : light;
      if (y === 7) svg += `<text x="${x + 0.96}" y="${y + 0.95}" class="bc-coord" text-anchor="end" fill="${ink}">${"abcdefgh"[file]}</text>`;
      if (x === 0) svg += `<text x="${x + 0.04}" y="${y + 0.24}" class="bc-coord" fill="${ink}">${rank + 1}</text>`;
    }
    const p = at[sq];
    if (p) {
      const side = p === p.toUpperCase() ? "w" : "b";
      svg += `<text x="${x + 0.5}" y="${y + 0.56}" class="bc-pc ${side}" data-sq="${sq}">${GLYPHS[p.toLowerCase()]}\uFE0E</text>`;
    }
  }
  return svg + "</svg>";
}

// English draughts: Black's men (squares 1-12) at the top unless `flip`;
// the dark squares numbered 1-32 when `coords`. `fen` is PDN FEN.
function draughtsSvg(fen, lastId, o) {
  const [light, dark] = BC.theme(o.theme);
  const pieces = {};
  for (const part of (fen || "").split(":")) {
    const side = part[0] === "W" ? "w" : part[0] === "B" ? "b" : null;
    if (!side || part.length < 2) continue;
    for (let item of part.slice(1).split(",")) {
      item = item.trim();
      const king = item[0] === "K";
      if (king) item = item.slice(1);
      // Ranges only within the board (a forged `1-1e9` must not hang).
      const [lo, hi] = item.split("-").map(Number);
      const top = item.includes("-") ? hi : lo;
      if (!Number.isInteger(lo) || !Number.isInteger(top) || lo < 1 || top > 50 || top < lo) continue;
      for (let n = lo; n <= Math.min(top, 32); n++) pieces[n] = { side, king };
    }
  }
  const last = new Set((lastId || "").split(/[-x]/).map(Number));
  let svg = '<svg viewBox="0 0 8 8" class="bc-board draughts" role="img" aria-label="draughts board">';
  for (let r = 0; r < 8; r++) for (let c = 0; c < 8; c++) {
    const x = o.flip ? 7 - c : c, y = o.flip ? 7 - r : r;
    const isDark = (r + c) % 2 === 1;
    svg += `<rect x="${x}" y="${y}" width="1" height="1" fill="${isDark ? dark : light}"/>`;
    if (!isDark) continue;
    const n = r * 4 + Math.floor(c / 2) + 1;
    if (last.has(n)) svg += `<rect x="${x}" y="${y}" width="1" height="1" class="bc-last" data-sq="${n}"/>`;
    if (o.coords) svg += `<text x="${x + 0.05}" y="${y + 0.24}" class="bc-coord" fill="${light}">${n}</text>`;
    const p = pieces[n];
    if (p) {
      svg += `<circle cx="${x + 0.5}" cy="${y + 0.5}" r="0.36" class="bc-man ${p.side}" data-sq="${n}"/>`;
      if (p.king) svg += `<text x="${x + 0.5}" y="${y + 0.63}" class="bc-king ${p.side}">K</text>`;
    }
  }
  return svg + "</svg>";
}

// Xiangqi: 9 x 10 points, Black at the top unless `flip`, the river, both
// palaces, the pieces as their characters.
const XQ = { k: "將", a: "士", b: "象", n: "馬", r: "車", c: "砲", p: "卒",
             K: "帥", A: "仕", B: "相", N: "傌", R: "俥", C: "炮", P: "兵" };
function xiangqiSvg(fen, lastId, o) {
  const px = f => (o.flip ? 8 - f : f) + 0.5, py = r => (o.flip ? 9 - r : r) + 0.5;
  const line = (f0, r0, f1, r1) => `<line x1="${px(f0)}" y1="${py(r0)}" x2="${px(f1)}" y2="${py(r1)}" class="bc-xq-line"/>`;
  let svg = '<svg viewBox="0 0 9 10" class="bc-board xiangqi" role="img" aria-label="xiangqi board"><rect width="9" height="10" class="bc-xq-bg"/>';
  for (let r = 0; r < 10; r++) svg += line(0, r, 8, r);
  for (let f = 0; f < 9; f++) {
    if (f === 0 || f === 8) svg += line(f, 0, f, 9);
    else svg += line(f, 0, f, 4) + line(f, 5, f, 9);
  }
  for (const [r0, r1] of [[0, 2], [7, 9]]) svg += line(3, r0, 5, r1) + line(5, r0, 3, r1);
  if (lastId && lastId.length === 4) {
    for (const sq of [lastId.slice(0, 2), lastId.slice(2, 4)]) {
      const f = "abcdefghi".indexOf(sq[0]), r = 9 - Number(sq[1]);
      if (f >= 0 && r >= 0 && r <= 9) svg += `<circle cx="${px(f)}" cy="${py(r)}" r="0.47" class="bc-last" data-sq="${sq}"/>`;
    }
  }
  const rows = (fen || "").split(" ")[0].split("/");
  rows.forEach((row, r) => {
    let f = 0;
    for (const c of row) {
      if (/\d/.test(c)) { f += +c; continue; }
      const side = c === c.toUpperCase() ? "r" : "b";
      if (XQ[c] && r < 10 && f < 9) {
        svg += `<circle cx="${px(f)}" cy="${py(r)}" r="0.42" class="bc-xq-pc ${side}"/><text x="${px(f)}" y="${py(r)}" class="bc-xq-ch ${side}" data-piece="${c}">${XQ[c]}</text>`;
      }
      f++;
    }
  });
  return svg + "</svg>";
}

// The board of a public state, as SVG.
BC.boardSvg = (s, o) => {
  const kind = (s && s.game_type) || "chess";
  const last = (s && s.last_move) || {};
  if (kind === "draughts") return draughtsSvg(s.position, last.id, o);
  if (kind === "xiangqi") return xiangqiSvg(s.position, last.id, o);
  return chessSvg(s && s.fen, last.uci, o);
};

// The game's sides, first mover first, as clocks and players name them.
BC.sides = game => game === "xiangqi" ? ["red", "black"] : game === "draughts" ? ["black", "white"] : ["white", "black"];

// A side's clock (seconds) and whether it runs: from the last clock event,
// else from the state's clocks; `null` without either.
BC.clock = (state, clock, side) => {
  if (clock && clock.connected) {
    const first = BC.sides(clock.game)[0] === side;
    const v = clock[side] ?? (first ? clock.left : clock.right);
    return { s: v ?? null, run: clock.running === side };
  }
  const c = state && state.clock;
  if (c && c[side] != null) return { s: c[side], run: false };
  return null;
};

// The player of `side` (the pairing's `white` and `black`; xiangqi's Red
// is the pairing's white).
BC.player = (state, side) => state && (side === "red" ? state.white : state[side]) || null;

// A player's name as a screen shows it: family name and initials
// ("Carlsen, M."), titled.
BC.shortName = p => {
  if (!p || !p.name) return "";
  let n = p.name;
  const [family, given] = n.split(/,\s*/, 2);
  if (given) n = family + ", " + given.split(/[\s-]+/).filter(Boolean).map(g => g[0] + ".").join(" ");
  return (p.title ? p.title + " " : "") + n;
};

// The last move, numbered ("23. Nf3", "23... Nf6").
BC.lastMove = s => {
  const m = s && s.last_move;
  if (!m) return "";
  const n = Math.ceil(m.ply / 2);
  return n + (m.ply % 2 ? ". " : "... ") + (m.san || m.notation || "");
};

// The page's parameters (`?per_page=12&seconds=20`), with defaults.
BC.params = () => new URLSearchParams(location.search);
BC.flag = (q, name, dflt) => {
  const v = q.get(name);
  return v == null ? dflt : !["0", "false", "no", "off"].includes(v.toLowerCase());
};
BC.number = (q, name, dflt, lo, hi) => {
  const v = Number(q.get(name));
  return q.get(name) == null || !Number.isFinite(v) ? dflt : Math.min(hi, Math.max(lo, Math.round(v)));
};

// The public delay the server set on <body>, in words ("" when live).
BC.delayText = () => {
  const d = Number(document.body.dataset.delayMs || 0);
  if (!d) return "";
  return "delayed by " + (d % 60000 === 0 ? d / 60000 + " min" : Math.round(d / 1000) + " s");
};

// A stream of the public view taking only the boards `ids`, never an
// alert; `on` handles `snapshot`, `state` and `event` (parsed).
BC.stream = (ids, on) => {
  const src = new EventSource("/events?alerts=off&boards=" + ids.map(encodeURIComponent).join(","));
  src.addEventListener("snapshot", m => on.snapshot(JSON.parse(m.data)));
  src.addEventListener("state", m => on.state(JSON.parse(m.data)));
  src.addEventListener("event", m => on.event(JSON.parse(m.data)));
  if (on.open) src.addEventListener("open", on.open);
  if (on.error) src.addEventListener("error", on.error);
  return src;
};
