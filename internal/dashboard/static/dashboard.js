// Progressive touches only: every page works without this script.
(function () {
  "use strict";
  // Copy buttons: <button data-copy="#id"> copies the text of the element.
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    b.hidden = false;
    b.addEventListener("click", function (e) {
      e.preventDefault();
      var el = document.querySelector(b.getAttribute("data-copy"));
      if (el && navigator.clipboard) {
        navigator.clipboard.writeText(el.value || el.textContent).then(function () {
          b.textContent = b.getAttribute("data-copied") || b.textContent;
        });
      }
    });
  });
  // A form submitted once is not submitted again by a second click; the
  // server's idempotency key makes a repeat harmless anyway.
  document.querySelectorAll("form[method=post]").forEach(function (f) {
    f.addEventListener("submit", function (e) {
      var msg = f.getAttribute("data-confirm");
      if (msg && !window.confirm(msg)) { e.preventDefault(); return; }
      if (f.dataset.sent) { e.preventDefault(); return; }
      f.dataset.sent = "1";
    });
  });
})();
// Forms whose fields depend on a choice (a payout's destination kind, a
// link's fixed or entered amount): the parts of the other choices are
// hidden and their inputs disabled, so they are not sent. Without the
// script every part shows and the server names a field that does not
// belong.
(function () {
  "use strict";
  document.querySelectorAll("[data-kind-of]").forEach(function (part) {
    var form = part.closest("form");
    if (!form) { return; }
    var sync = function () {
      var choice = form.elements[part.getAttribute("data-kind-of")];
      var on = !choice || choice.value === part.getAttribute("data-kind");
      part.hidden = !on;
      part.querySelectorAll("input, select, textarea").forEach(function (el) { el.disabled = !on; });
    };
    form.addEventListener("change", sync);
    sync();
  });
})();
// On a phone the sections are one line that scrolls sideways: the
// current one is brought into view.
(function () {
  "use strict";
  var here = document.querySelector("nav.sections [aria-current=page]");
  if (here && here.scrollIntoView) { here.scrollIntoView({block: "nearest", inline: "center"}); }
})();
