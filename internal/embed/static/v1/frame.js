// payd embedded form, v1: the script of the pages inside the frame.
// It tells the merchant's page, and no other, the page's height and, on
// the result page, the payment's outcome. The origin it posts to is the
// one the server bound the form to (data-origin), never one the page
// around it claims.
(function () {
  "use strict";
  var me = document.currentScript;
  var origin = me && me.getAttribute("data-origin");
  if (!origin || window.parent === window) {
    return;
  }
  function send(msg) {
    msg.source = "payd";
    msg.version = 1;
    window.parent.postMessage(msg, origin);
  }
  var last = -1;
  function size() {
    var h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h !== last) {
      last = h;
      send({ type: "resize", height: h });
    }
  }
  size();
  if (window.ResizeObserver) {
    new ResizeObserver(size).observe(document.documentElement);
  } else {
    window.addEventListener("resize", size);
  }
  var ev = me.getAttribute("data-event");
  if (ev === "success" || ev === "failure" || ev === "closed") {
    var msg = { type: ev };
    var fields = { payment: "payment_id", status: "status", reason: "reason" };
    for (var k in fields) {
      var v = me.getAttribute("data-" + k);
      if (v) {
        msg[fields[k]] = v;
      }
    }
    send(msg);
  }
})();
