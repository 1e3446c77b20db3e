"use strict";
// The table picture of the play page (an SVG whose cards carry their places, data-at): the cards of the
// person's legal moves made clickable, and the cards each other seat's last turn moved marked with its name.
// Which move a card makes comes from the server alone: each legal move lists the places of its cards.
window.qeTable = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = ["#ff8a65", "#4fc3f7", "#ce93d8", "#a5d6a7", "#f48fb1", "#ffe082"];

  function node(parent, name, attributes, text) {
    const made = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, String(value));
    if (text !== undefined) made.textContent = text;
    parent.appendChild(made);
    return made;
  }

  // The moves (with cards) whose cards include every one of `places`.
  function fits(moves, places) {
    return moves.filter((move) => move.cards.length && places.every((at) => move.cards.includes(at)));
  }

  // The part of a card not covered by the next card of its zone (a pile's or a long hand's cards overlap).
  function shownBox(svg, at) {
    const card = svg.querySelector(`[data-at="${at}"]`);
    if (!card) return null;
    const box = card.getBBox();
    const parts = at.split(".");
    const next = parts.length === 2 ? svg.querySelector(`[data-at="${parts[0]}.${Number(parts[1]) + 1}"]`) : null;
    const right = next ? Math.min(box.x + box.width, next.getBBox().x) : box.x + box.width;
    return { x0: box.x, y0: box.y, x1: right, y1: box.y + box.height };
  }

  // marks: [{at, seat}]. Each seat's run of neighbouring cards in a zone gets one outline in the seat's colour,
  // labelled with its name.
  function mark(table, marks) {
    const svg = table.querySelector("svg");
    if (!svg || !marks || !marks.length) return;
    const sorted = [...marks].sort((a, b) => a.at.localeCompare(b.at, "en", { numeric: true }));
    const runs = [];
    for (const m of sorted) {
      const box = shownBox(svg, m.at);
      if (!box) continue;
      const [zone, index] = m.at.split(".");
      const last = runs[runs.length - 1];
      if (last && last.seat === m.seat && last.zone === zone && last.index + 1 === Number(index)) {
        Object.assign(last, { index: Number(index), x1: Math.max(last.x1, box.x1), y1: Math.max(last.y1, box.y1) });
      } else {
        runs.push({ seat: m.seat, zone, index: Number(index), ...box });
      }
    }
    for (const run of runs) {
      const colour = COLOURS[run.seat % COLOURS.length];
      const name = `player_${run.seat}`;
      const layer = node(svg, "g", { class: "qe-mark", "data-mark": name, "pointer-events": "none" });
      node(layer, "rect", { x: run.x0 - 4, y: run.y0 - 4, width: run.x1 - run.x0 + 8, height: run.y1 - run.y0 + 8,
        rx: 8, fill: "none", stroke: colour, "stroke-width": 4 });
      const width = name.length * 7.6 + 12;
      const middle = Math.max((run.x0 + run.x1) / 2, run.x0 - 4 + width / 2);
      node(layer, "rect", { x: middle - width / 2, y: run.y1 - 6, width, height: 19, rx: 9, fill: colour });
      node(layer, "text", { x: middle, y: run.y1 + 8, "text-anchor": "middle", "font-size": 13,
        "font-weight": "bold", fill: "#1d1d1d" }, name);
    }
  }

  // Makes the cards clickable that, with the cards already chosen (`picked`), some legal move uses: each gets a
  // tooltip naming the move(s) and is drawn on top of the cards it overlaps; the chosen ones are outlined.
  function offer(table, moves, picked) {
    const svg = table.querySelector("svg");
    if (!svg) return;
    for (const tip of svg.querySelectorAll("title.qe-tip")) tip.remove();
    for (const card of svg.querySelectorAll("[data-at]")) {
      const at = card.getAttribute("data-at");
      const chosen = picked.includes(at);
      const using = chosen ? [] : fits(moves, [...picked, at]);
      card.classList.toggle("qe-picked", chosen);
      card.classList.toggle("qe-can", using.length > 0);
      if (chosen || using.length) raise(card);
      if (chosen || using.length) {
        const tip = document.createElementNS(SVG, "title");
        tip.setAttribute("class", "qe-tip");
        tip.textContent = chosen ? "chosen: click to put it back" : using.map((move) => move.name).join(" or ");
        card.insertBefore(tip, card.firstChild);
      }
    }
  }

  // Draws a card (a face: and its card) on top of its neighbours, below the marks: its outline shows whole.
  function raise(card) {
    for (let node = card; node && node.hasAttribute && node.hasAttribute("data-at");
      node = node.parentNode.closest("[data-at]")) {
      node.parentNode.insertBefore(node, node.parentNode.querySelector(":scope > .qe-mark"));
    }
  }

  // Highlights the cards of one move (a move's button is hovered), or none.
  function hint(table, move) {
    for (const card of table.querySelectorAll(".qe-hint")) card.classList.remove("qe-hint");
    for (const at of move ? move.cards : []) {
      const card = table.querySelector(`[data-at="${at}"]`);
      if (card) card.classList.add("qe-hint");
    }
  }

  return { fits, mark, offer, hint };
})();
