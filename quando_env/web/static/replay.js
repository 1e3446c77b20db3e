"use strict";
// A replay: step forwards (data-replay-next) and back (data-replay-prev), jump to any position
// (data-replay-jump), watch from the omniscient view or any seat's (data-replay-seat). The data comes
// from quando_env.web.replay_page: the pictures are gzip-packed JSON, unpacked here. The table and, beside it,
// the controls and the move text fit one 1280x720 view.
window.qeReplay = async function (root, data) {
  const make = (tag, attrs = {}, text = "") => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    if (text) node.textContent = text;
    return node;
  };
  const bytes = Uint8Array.from(atob(data.packed), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const packed = JSON.parse(await new Response(stream).text());
  const last = data.positions.length - 1;
  let at = 0, viewer = 0;

  const prev = make("button", { type: "button", "data-replay-prev": "" }, "\u25c0 back");
  const next = make("button", { type: "button", "data-replay-next": "" }, "forward \u25b6");
  const jump = make("input", { type: "range", min: "0", max: String(last), value: "0", "data-replay-jump": "",
                               "aria-label": "position" });
  const number = make("input", { type: "number", min: "0", max: String(last), value: "0",
                                 "data-replay-position": "", "aria-label": "go to position" });
  const seat = make("select", { "data-replay-seat": "", "aria-label": "view" });
  data.viewers.forEach((name, i) => seat.appendChild(make("option", { value: String(i) }, name)));
  const where = make("span", { class: "status", "data-replay-at": "" });
  const table = make("div", { class: "table" });
  const told = make("div", { class: "log" });
  const side = make("div", { class: "replay-side" });     // the controls and the move text beside the table
  side.append(make("div", { class: "controls" }), told);
  side.firstChild.append(prev, next, jump, number, seat, where);
  const body = make("div", { class: "replay-body" });
  body.append(table, side);
  root.replaceChildren(make("h2", {}, data.title), make("p", { class: data.proven ? "" : "status",
                       "data-replay-proof": "" }, data.proof), body);

  function draw() {
    table.innerHTML = packed.svgs[packed.frames[viewer][at]];
    const position = data.positions[at];
    where.textContent = `position ${at} of ${last}` + (at === last ? " (after the last action)" : "");
    jump.value = String(at);
    number.value = String(at);
    prev.disabled = at === 0;
    next.disabled = at === last;
    told.replaceChildren(...position.told.map((line) => make("div", {}, line)),
                         ...(position.next ? [make("div", { class: "status" }, "next: " + position.next)] : []));
  }
  const go = (k) => {
    if (Number.isInteger(k) && k >= 0 && k <= last) { at = k; draw(); }
  };
  prev.addEventListener("click", () => go(at - 1));
  next.addEventListener("click", () => go(at + 1));
  jump.addEventListener("input", () => go(parseInt(jump.value, 10)));
  number.addEventListener("change", () => go(parseInt(number.value, 10)));
  seat.addEventListener("change", () => { viewer = parseInt(seat.value, 10); draw(); });
  root.tabIndex = 0;
  root.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight") go(at + 1);
    if (event.key === "ArrowLeft") go(at - 1);
  });
  draw();
};
if (window.QE_REPLAY) window.qeReplay(document.getElementById("replay"), window.QE_REPLAY);
