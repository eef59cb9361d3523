// Match review: edits go to the JSON API with the page's version and CSRF token; after a change the page
// moves on to the next open flag. Keys: n/p next/previous flag, a accept, 1-9 alternative, u undo.
(function () {
  "use strict";
  const root = document.getElementById("review");
  if (!root) return;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const match = root.dataset.match;
  const game = Number(root.dataset.game), action = Number(root.dataset.action);
  const locked = root.dataset.locked === "1";
  let busy = false;

  function show(text) {
    const box = document.getElementById("message");
    box.textContent = text;
    box.hidden = false;
  }

  function go(g, a) { window.location.href = "/matches/" + match + "?g=" + g + "&a=" + a; }

  function nextOpen(flags) {
    const after = flags.find(f => f.game > game || (f.game === game && f.action > action));
    return after || flags[0] || null;
  }

  async function post(path, body, stay) {
    if (busy) return;
    busy = true;
    try {
      const res = await fetch("/api/v1/matches/" + match + "/transcript" + path, {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
        body: JSON.stringify(Object.assign({version: Number(root.dataset.version)}, body)),
      });
      const data = await res.json().catch(() => ({}));
      if (!res.ok) {
        const d = data.detail;
        const msg = typeof d === "string" ? d : (d && d.message) || ("error " + res.status);
        show((res.status === 409 ? "Conflict: " : "") + msg);
        return;
      }
      const f = stay ? null : nextOpen(data.open_flags || []);
      if (f) go(f.game, f.action); else go(game, action);
    } catch (e) {
      show("The server did not answer: " + e);
    } finally {
      busy = false;
    }
  }

  function edit(body, stay) { return post("/edits", Object.assign({game: game, action: action}, body), stay); }

  function pick(btn) {
    edit({op: "set_move", dice: btn.dataset.dice.split(",").map(Number), play: btn.dataset.play,
          how: "picked alternative " + btn.dataset.n + ": " + btn.textContent.trim().replace(/^\d\s+/, "")});
  }

  document.querySelectorAll("button.alt").forEach(b => b.addEventListener("click", () => pick(b)));
  const on = (id, ev, fn) => { const el = document.getElementById(id); if (el) el.addEventListener(ev, fn); };
  on("accept", "click", () => edit({op: "accept"}));
  on("confirm", "click", () => edit({op: "accept", basis: "confirmed"}));
  on("undo", "click", () => post("/undo", {}, true));
  on("approve", "click", () => post("/approve", {}, true));
  on("reopen", "click", () => post("/reopen", {}, true));
  on("submitted", "click", () => post("/submitted", {}, true));
  on("set-move", "submit", e => {
    e.preventDefault();
    const f = e.target.elements;
    edit({op: "set_move", dice: [Number(f.d1.value), Number(f.d2.value)], play: f.play.value});
  });
  on("set-kind", "submit", e => { e.preventDefault(); edit({op: "set_kind", kind: e.target.elements.kind.value}); });
  on("set-resign", "submit", e => {
    e.preventDefault(); edit({op: "set_resign", value: Number(e.target.elements.value.value)});
  });
  on("set-result", "submit", e => {
    e.preventDefault();
    const f = e.target.elements;
    post("/edits", {op: "set_result", game: game, winner: f.winner.value === "" ? null : Number(f.winner.value),
                    points: f.points.value === "" ? null : Number(f.points.value)}, true);
  });
  on("set-players", "submit", e => {
    e.preventDefault();
    const f = e.target.elements;
    post("/edits", {op: "set_players", players: [f.p1.value, f.p2.value]}, true);
  });

  document.addEventListener("keydown", e => {
    if (e.target.closest("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    if (k === "n" || k === "p") {
      const t = root.dataset[k === "n" ? "next" : "prev"];
      if (t) { const [g, a] = t.split("/"); go(g, a); }
    } else if (locked) {
      return;
    } else if (k === "a") {
      const b = document.getElementById("accept"); if (b && !b.disabled) b.click();
    } else if (k === "u") {
      post("/undo", {}, true);
    } else if (/^[1-9]$/.test(k)) {
      const b = document.querySelector('button.alt[data-n="' + k + '"]'); if (b) pick(b);
    } else {
      return;
    }
    e.preventDefault();
  });
  // The camera frame: a clear note instead of a broken image if it cannot be shown; step a second either way.
  const frame = document.getElementById("frame");
  const missing = document.getElementById("frame-missing");
  const camera = document.getElementById("camera");
  let frameT = camera && camera.dataset.t !== "" ? Number(camera.dataset.t) : null;
  if (frame) {
    frame.addEventListener("error", async () => {
      let why = "the frame could not be loaded";
      try {
        const r = await fetch(frame.src, {credentials: "same-origin"});
        const d = await r.json();
        if (d && typeof d.detail === "string") why = d.detail;
      } catch (e) { /* keep the generic reason */ }
      frame.hidden = true;
      missing.textContent = "No camera frame: " + why + ".";
      missing.hidden = false;
    });
    frame.addEventListener("load", () => { frame.hidden = false; missing.hidden = true; });
    document.querySelectorAll("button.step").forEach(b => b.addEventListener("click", () => {
      frameT = Math.max(0, Math.round((frameT + Number(b.dataset.step)) * 10) / 10);
      frame.src = "/api/v1/matches/" + match + "/frame.jpg?t=" + frameT;
      const label = document.getElementById("frame-time");
      if (label) label.textContent = Math.floor(frameT / 60) + ":" + (frameT % 60).toFixed(1).padStart(4, "0");
    }));
  }
  const clip = document.getElementById("clip");
  if (clip) {
    clip.addEventListener("loadedmetadata", () => {
      const start = Number(clip.dataset.start);
      if (Math.abs(clip.currentTime - start) > 0.5) clip.currentTime = start;
    });
    document.getElementById("clip-box").addEventListener("toggle", e => {
      if (e.target.open) clip.preload = "auto"; else clip.pause();
    });
  }

  const sel = document.querySelector("nav.moves tr.selected");
  if (sel) sel.scrollIntoView({block: "center"});
})();
