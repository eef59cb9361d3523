// Live boards: the overlay (one board) and the hall (every board in progress), kept current by Server-Sent
// Events from /api/v1/live/... (the page's data-feed). The board is drawn by the server (an SVG in the state);
// names and plays go in as text, never as markup.
(function () {
  "use strict";
  const DIE = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];
  const PHASE = { waiting: "waiting for the board", setup: "setting up", to_roll: "to roll",
                  playing: "playing", game_over: "game over" };

  function text(root, sel, value) {
    root.querySelectorAll(sel).forEach(function (el) { el.textContent = value; });
  }

  function fill(root, st) {
    root.dataset.version = st.version;
    root.dataset.phase = st.phase;
    root.dataset.xgid = st.position ? st.position.xgid : "";
    const m = st.match;
    const players = m ? m.players : ["", ""];
    const score = st.score_after_game || st.score || [0, 0];
    [0, 1].forEach(function (p) {
      const name = root.querySelector('.name[data-player="' + p + '"]');
      if (name) { name.textContent = players[p]; name.dataset.turn = st.turn === p ? "1" : "0"; }
      text(root, '.score[data-player="' + p + '"]', m ? String(score[p]) : "");
    });
    text(root, ".length", m ? (m.length ? m.length + "-point match" : "money session") +
         (st.game ? " \u00b7 game " + st.game : "") : "");
    const crawford = root.querySelector(".crawford");
    if (crawford) crawford.hidden = !st.crawford;
    const svg = root.querySelector(".svg");
    if (svg && svg.dataset.version !== String(st.version)) {
      svg.innerHTML = st.svg || "";  // (the server's own drawing: names in it are escaped there)
      svg.dataset.version = st.version;
    }
    let phase = PHASE[st.phase] || st.phase;
    if (st.phase === "playing" && m && st.turn !== null && st.turn !== undefined) phase = players[st.turn] + " playing";
    if (st.phase === "to_roll" && m && st.turn !== null && st.turn !== undefined) phase = players[st.turn] + " to roll";
    if (st.match_over) phase = "match over";
    if (st.live === false && st.phase !== "waiting") phase += " (camera not live)";
    const ph = root.querySelector(".phase");
    if (ph) { ph.textContent = phase; ph.classList.toggle("weighed", st.phase === "playing"); }
    text(root, ".dice", st.dice ? DIE[st.dice[0]] + DIE[st.dice[1]] : "");
    const lp = st.last_play;
    const last = root.querySelector(".lastplay");
    if (last) {
      last.textContent = lp ? players[lp.player] + " " + lp.dice.join("-") + ": " + lp.play +
        (lp.settled ? "" : " (still weighed)") : "";
      last.classList.toggle("weighed", !!lp && !lp.settled);
    }
    const an = root.querySelector(".analysis");
    if (an) {  // gnubg's judgement of the play just made (never of one to come)
      const a = lp && lp.analysis;
      const signed = function (x) { return (x >= 0 ? "+" : "\u2212") + Math.abs(x).toFixed(3); };
      an.textContent = a ? (a.error > 0.0005 ? "error " + a.error.toFixed(3) + " \u00b7 best " + a.best
                                             : "best play") +
        " \u00b7 equity " + signed(a.equity) + " \u00b7 gnubg " + a.ply + "-ply" : "";
      an.hidden = !a;
      an.classList.toggle("error", !!a && a.error >= 0.08);
    }
    text(root, ".pips", st.pips ? "pips " + st.pips[0] + " \u2013 " + st.pips[1] : "");
    const rec = root.querySelector(".record");
    if (rec) {  // the transcript says otherwise: never shown silently
      const r = st.record;
      rec.hidden = !r || r.agrees;
      rec.textContent = r && !r.agrees ? "the transcript differs from game " + r.differs_at.game + ", play " +
        r.differs_at.move : "";
    }
    const no = root.querySelector(".boardno");
    if (no) no.textContent = "board " + st.board + (m && m.round ? " \u00b7 round " + m.round : "");
  }

  function overlay(body) {
    const root = document.getElementById("board");
    const feed = new EventSource(body.dataset.feed);
    feed.addEventListener("state", function (e) { fill(root, JSON.parse(e.data)); });
  }

  function hall(body) {
    const grid = document.getElementById("hall");
    const card = document.getElementById("card");
    const empty = document.querySelector(".empty");
    const feed = new EventSource(body.dataset.feed);
    feed.addEventListener("hall", function (e) {
      const boards = JSON.parse(e.data).boards;
      const keep = new Set(boards.map(function (b) { return String(b.board); }));
      grid.querySelectorAll(".card").forEach(function (el) { if (!keep.has(el.dataset.board)) el.remove(); });
      boards.forEach(function (st) {
        let el = grid.querySelector('.card[data-board="' + st.board + '"]');
        if (!el) {
          el = card.content.firstElementChild.cloneNode(true);
          el.dataset.board = st.board;
          grid.appendChild(el);
        }
        if (el.dataset.version !== String(st.version)) fill(el, st);
      });
      empty.hidden = boards.length > 0;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    const body = document.body;
    if (body.classList.contains("overlay")) overlay(body); else hall(body);
  });
})();
