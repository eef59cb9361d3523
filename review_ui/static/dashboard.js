// The live dashboard: re-reads the boards and matches every few seconds (a logged-out session reloads the
// page, which goes to the login form).
(function () {
  "use strict";
  const live = document.getElementById("live");
  if (!live) return;
  const every = Number(live.dataset.refresh || 5) * 1000;
  const state = document.getElementById("refresh-state");
  async function refresh() {
    try {
      const res = await fetch("/dashboard/live", {credentials: "same-origin", cache: "no-store"});
      if (res.redirected || res.status === 401) { window.location.reload(); return; }
      if (!res.ok) throw new Error("HTTP " + res.status);
      live.innerHTML = await res.text();
      state.textContent = "Updated " + new Date().toLocaleTimeString() + ".";
    } catch (e) {
      state.textContent = "Could not refresh (" + e.message + "); retrying.";
    }
  }
  setInterval(refresh, every);
})();
