// payd embedded payment form, v2 (docs/embedded.md).
//
//   <div id="payment-form"></div>
//   <script src="https://PAYD/embed/v2/payd.js"></script>
//   <script>
//     var checkout = new PaydCheckout({ confirmation_token: "ct_..." });
//     checkout.on("success", function (e) { /* e.payment_id, e.status */ });
//     checkout.on("failure", function (e) { /* e.reason */ });
//     checkout.on("closed", function (e) { /* e.reason */ });
//     checkout.on("error", function (e) { /* e.reason: origin_not_allowed */ });
//     checkout.render("payment-form");
//   </script>
//
// The same outcomes are dispatched on the container as DOM events
// payd:success, payd:failure, payd:closed and payd:error (bubbling,
// detail = the object above). An event tells the page what the payer saw; the payment's
// truth is the API and the webhook.
(function (w, d) {
  "use strict";
  if (w.PaydCheckout) {
    return;
  }
  var script = d.currentScript;
  // payd's origin: where this script came from, and the only origin whose
  // messages the widget reads.
  var base = script ? new URL(script.src).origin : "";
  var outcomes = { success: true, failure: true, closed: true, error: true };

  function PaydCheckout(options) {
    if (!(this instanceof PaydCheckout)) {
      return new PaydCheckout(options);
    }
    options = options || {};
    if (typeof options.confirmation_token !== "string" || options.confirmation_token === "") {
      throw new Error("PaydCheckout: confirmation_token is required");
    }
    if (!base) {
      throw new Error("PaydCheckout: load payd.js with a <script src> tag");
    }
    this.token = options.confirmation_token;
    this.locale = typeof options.locale === "string" ? options.locale : "";
    this.handlers = { success: [], failure: [], closed: [], error: [] };
    this.frame = null;
    this.container = null;
    this.done = false;
    this.listener = null;
  }

  // on adds a handler of "success", "failure", "closed" or "error".
  PaydCheckout.prototype.on = function (name, fn) {
    if (!outcomes[name] || typeof fn !== "function") {
      throw new Error("PaydCheckout.on: an event of success, failure, closed or error and a function");
    }
    this.handlers[name].push(fn);
    return this;
  };

  // render frames the payment form in target: an element, or its id.
  PaydCheckout.prototype.render = function (target) {
    var el = typeof target === "string" ? d.getElementById(target) : target;
    if (!el || !el.appendChild) {
      throw new Error("PaydCheckout.render: no such container element");
    }
    if (this.frame) {
      throw new Error("PaydCheckout.render: already rendered; a token opens one form");
    }
    var url = base + "/embed/v2/pay/" + encodeURIComponent(this.token) +
      "?origin=" + encodeURIComponent(w.location.origin);
    if (this.locale) {
      url += "&lang=" + encodeURIComponent(this.locale);
    }
    var f = d.createElement("iframe");
    f.src = url;
    f.title = "Payment form";
    // Until the form reports its height the frame has a form's usual
    // one; it scrolls only when a page inside does not report its own.
    f.style.cssText = "display:block;width:100%;min-width:280px;height:360px;border:0;background:transparent";
    var self = this;
    this.listener = function (e) {
      if (e.origin !== base || e.source !== f.contentWindow) {
        return;
      }
      var m = e.data;
      if (!m || m.source !== "payd" || typeof m.type !== "string") {
        return;
      }
      if (m.type === "resize") {
        if (typeof m.height === "number" && m.height > 0) {
          f.style.height = Math.min(Math.ceil(m.height), 4000) + "px";
        }
        return;
      }
      if (outcomes[m.type]) {
        self.emit(m.type, { payment_id: m.payment_id, status: m.status, reason: m.reason });
      }
    };
    w.addEventListener("message", this.listener);
    this.frame = f;
    this.container = el;
    el.appendChild(f);
    return this;
  };

  // emit reports the form's one outcome: the first of success, failure,
  // closed or error; later ones (a payer going back in the frame) are
  // dropped.
  PaydCheckout.prototype.emit = function (name, detail) {
    if (this.done) {
      return;
    }
    this.done = true;
    var list = this.handlers[name].slice();
    for (var i = 0; i < list.length; i++) {
      try {
        list[i].call(this, detail);
      } catch (err) {
        setTimeout(function () { throw err; });
      }
    }
    if (this.container) {
      this.container.dispatchEvent(new CustomEvent("payd:" + name, { bubbles: true, detail: detail }));
    }
  };

  // destroy removes the frame and stops listening.
  PaydCheckout.prototype.destroy = function () {
    if (this.listener) {
      w.removeEventListener("message", this.listener);
      this.listener = null;
    }
    if (this.frame && this.frame.parentNode) {
      this.frame.parentNode.removeChild(this.frame);
    }
    this.frame = null;
  };

  w.PaydCheckout = PaydCheckout;
})(window, document);
