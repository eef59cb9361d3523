// The board's field page: the picture with the confirmed corners (green), the found outline (yellow dashes)
// and the corners being clicked (blue); four clicks round the field fill the form's corners (shares of the
// picture's width and height, as the server keeps them).
(function () {
  "use strict";
  const box = document.getElementById("field-pic");
  if (!box) return;
  const img = document.getElementById("field-picture");
  const svg = document.getElementById("field-overlay");
  const input = document.getElementById("field-corners");
  const save = document.getElementById("field-save");
  const said = document.getElementById("field-clicks");
  const accept = document.getElementById("field-accept");
  const found = JSON.parse(box.dataset.found || "null");
  const field = JSON.parse(box.dataset.field || "null");
  const NS = "http://www.w3.org/2000/svg";
  let clicks = [];

  function shape(pts, cls, closed) {
    const w = img.naturalWidth, h = img.naturalHeight;
    const el = document.createElementNS(NS, closed ? "polygon" : "polyline");
    el.setAttribute("points", pts.map(p => (p[0] * w) + "," + (p[1] * h)).join(" "));
    el.setAttribute("class", cls);
    svg.appendChild(el);
    pts.forEach(p => {
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("cx", p[0] * w); c.setAttribute("cy", p[1] * h);
      c.setAttribute("r", Math.max(w, h) / 200); c.setAttribute("class", cls);
      svg.appendChild(c);
    });
  }
  function draw() {
    svg.setAttribute("viewBox", "0 0 " + img.naturalWidth + " " + img.naturalHeight);
    svg.replaceChildren();
    if (field) shape(field, "confirmed", true);
    if (found) shape(found, "found", true);
    if (clicks.length) shape(clicks, "clicked", clicks.length === 4);
    said.textContent = clicks.length + " of 4 corners clicked.";
    save.disabled = clicks.length !== 4;
    input.value = clicks.length === 4 ? JSON.stringify(clicks) : "";
  }
  img.addEventListener("load", draw);
  if (img.complete && img.naturalWidth) draw();
  img.addEventListener("click", ev => {
    const r = img.getBoundingClientRect();
    if (clicks.length === 4) clicks = [];
    clicks.push([(ev.clientX - r.left) / r.width, (ev.clientY - r.top) / r.height]);
    draw();
  });
  document.getElementById("field-reset").addEventListener("click", () => { clicks = []; draw(); });
  if (accept) accept.addEventListener("click", () => { input.value = JSON.stringify(found); });
})();
