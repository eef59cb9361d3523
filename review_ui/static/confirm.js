// A button with data-confirm asks before its form is sent (no inline handlers: the Content-Security-Policy
// allows scripts from this server only).
document.addEventListener("click", (e) => {
  const b = e.target.closest("[data-confirm]");
  if (b && !window.confirm(b.dataset.confirm)) e.preventDefault();
});
