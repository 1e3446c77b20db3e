"use strict";
// The play page: shows the events the server sends for this page's seat (its view after each decision, the
// narration), one at a time at the chosen pace, then the seat's legal moves as buttons (data-action). While
// others decide (agents, other people) it asks the server for what is new; a spectator's page only watches.
// The lines told since the person's last move are marked (class "recent"); Cabo's snap windows can be passed
// by themselves (auto-pass). The table (table.js) marks the cards the others just moved, and a move can be
// made by clicking its cards: a card that one legal move uses makes it; a card that several use is chosen,
// and the next card, or the chosen cards' move in the list, tells which. Each round's points come as a table;
// once the game is over the page offers its record (which holds every card) as a file.
(() => {
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);
  const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
  let pace = null, since = 0, game = null, turn = null, timer = null, busy = false, current = null, picked = [];

  async function api(path, body) {
    const init = { headers: { "X-Token": token } };
    if (body !== undefined) {
      init.method = "POST";
      init.headers["Content-Type"] = "application/json";
      init.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    const answer = await fetch(path, init);
    const data = await answer.json();
    if (!answer.ok) throw new Error(data.error || answer.statusText);
    return data;
  }

  function log(lines, kind) {
    for (const line of lines) {
      const div = document.createElement("div");
      div.textContent = line;
      div.className = kind ? `${kind} recent` : "recent";
      $("log").appendChild(div);
    }
    $("log").scrollTop = $("log").scrollHeight;
  }

  // A round's points as a table: {caption, head, rows}.
  function points(table) {
    const node = (tag, text) => {
      const made = document.createElement(tag);
      made.textContent = String(text);
      return made;
    };
    const made = document.createElement("table");
    made.className = "points recent";
    made.appendChild(node("caption", table.caption));
    const head = made.appendChild(document.createElement("tr"));
    for (const name of table.head) head.appendChild(node("th", name));
    for (const row of table.rows) {
      const tr = made.appendChild(document.createElement("tr"));
      row.forEach((cell, i) => tr.appendChild(node(i ? "td" : "th", cell)));
    }
    $("log").appendChild(made);
    $("log").scrollTop = $("log").scrollHeight;
  }

  // The finished game's record, fetched with the page's token and offered as a file.
  async function download() {
    try {
      const record = await api("/api/record");
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([JSON.stringify(record)], { type: "application/json" }));
      link.download = `${record.format.split("-")[0]}-game-${game}.json`;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    } catch (error) { failed(error); }
  }

  function failed(error) {
    $("error").textContent = String(error.message || error);
  }

  async function show(state, animate) {
    if (state.game !== game) {
      game = state.game;
      $("log").replaceChildren();
    }
    turn = state.turn;
    since = state.next;
    $("moves").replaceChildren();
    $("over").hidden = true;
    $("over").removeAttribute("data-game-over");
    $("error").textContent = "";
    const who = state.seat === null ? "you watch" : `you are player_${state.seat}`;
    $("title").textContent = `${state.title}: ${who}`;
    if (pace === null) {
      pace = state.pace;
      $("pace").value = pace;
    }
    if (state.skipped) log([`(${state.skipped} earlier events are not shown)`], "status");
    let shown = null;
    for (const event of state.events) {     // a pause before each new picture: the last one stays a while
      if (event.svg !== null) {           // an older event is told as text only
        if (animate && shown && event.svg !== shown.svg && pace > 0) {
          await sleep((shown.reveal ? 3 : 1) * pace * 1000);
        }
        if (!shown || event.svg !== shown.svg || JSON.stringify(event.marks) !== JSON.stringify(shown.marks)) {
          $("table").innerHTML = event.svg;
          window.qeTable.mark($("table"), event.marks);
        }
        shown = event;
      }
      log(event.lines, event.reveal ? "reveal" : "");
      if (event.points) points(event.points);
    }
    if (state.over) {
      $("result").textContent = state.result || "Game over.";
      $("over").hidden = false;
      $("over").setAttribute("data-game-over", "");
      $("new").hidden = state.seat === null;
    }
    $("auto-pass-label").hidden = !state.title.toLowerCase().startsWith("cabo") || state.seat === null;
    current = state;
    if (autoPass(state)) return;
    for (const move of state.moves) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.action = String(move.action);
      button.textContent = move.name;
      if (move.detail) {
        const small = document.createElement("small");
        small.textContent = ` (${move.detail})`;
        button.appendChild(small);
      }
      if (move.p !== undefined) {      // --hints: the learned agent's probability of this move
        const hint = document.createElement("span");
        hint.className = "hint";
        hint.textContent = `${Math.round(move.p * 100)}%`;
        hint.style.setProperty("--p", String(move.p));
        button.appendChild(hint);
      }
      button.addEventListener("click", () => play(move.action));
      button.addEventListener("mouseenter", () => window.qeTable.hint($("table"), move));
      button.addEventListener("mouseleave", () => window.qeTable.hint($("table"), null));
      $("moves").appendChild(button);
    }
    $("moves").dataset.turn = String(state.turn);
    pick([]);
    const cards = state.moves.some((move) => move.cards.length);
    $("status").textContent = state.moves.length ? (cards ? "Your move: click a card or a move." : "Your move.")
      : state.over ? "" : "Waiting for the others...";
    if (!state.moves.length) wait(state.over ? 1500 : 400);
  }

  function autoPass(state) {
    const pass = state.moves.find((move) => move.name === "pass");
    if (!pass || !$("auto-pass").checked || !state.moves.every((move) => move === pass || move.name.startsWith("snap")))
      return false;
    play(pass.action);
    return true;
  }

  // The cards chosen so far: the table offers the cards that fit them, the list marks the moves they fit and
  // offers those whose cards are exactly the chosen ones.
  function pick(places) {
    picked = places;
    const moves = current ? current.moves : [];
    window.qeTable.offer($("table"), moves, picked);
    const fitting = picked.length ? window.qeTable.fits(moves, picked) : [];
    for (const button of $("moves").querySelectorAll("button")) {
      button.classList.toggle("fits", fitting.some((move) => String(move.action) === button.dataset.action));
    }
    const exact = fitting.filter((move) => move.cards.length === picked.length);
    $("picked").hidden = !picked.length;
    $("picked-moves").replaceChildren(...exact.map((move) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.confirm = String(move.action);
      button.textContent = move.name;
      button.addEventListener("click", () => play(move.action));
      return button;
    }));
  }

  function clicked(event) {
    const card = event.target.closest(".qe-can, .qe-picked");
    if (!card || !current || busy) return;
    const at = card.getAttribute("data-at");
    if (picked.includes(at)) return pick(picked.filter((place) => place !== at));
    const using = window.qeTable.fits(current.moves, [...picked, at]);
    if (using.length === 1) return play(using[0].action);
    pick([...picked, at]);
  }

  function wait(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }

  async function poll() {
    if (busy) return wait(400);
    busy = true;
    try {
      await show(await api(`/api/state?since=${since}&game=${game === null ? 0 : game}`), true);
    } catch (error) {
      failed(error);
      wait(2000);
    } finally { busy = false; }
  }

  async function play(action) {
    clearTimeout(timer);
    for (const line of $("log").querySelectorAll(".recent")) line.classList.remove("recent");
    for (const button of $("moves").querySelectorAll("button")) button.disabled = true;
    window.qeTable.offer($("table"), [], []);
    $("picked").hidden = true;
    $("status").textContent = "...";
    busy = true;
    try {
      await show(await api("/api/move", { action, turn }), true);
    } catch (error) {
      failed(error);
      busy = false;
      return poll();
    }
    busy = false;
  }

  $("new").addEventListener("click", async () => {
    clearTimeout(timer);
    busy = true;
    try {
      await show(await api("/api/new", { game }), false);
    } catch (error) { failed(error); }
    busy = false;
  });
  $("download").addEventListener("click", download);
  $("table").addEventListener("click", clicked);
  $("put-back").addEventListener("click", () => pick([]));
  $("auto-pass").addEventListener("change", () => { if (current && !busy) autoPass(current); });
  $("pace").addEventListener("change", () => {
    const value = parseFloat($("pace").value);
    if (Number.isFinite(value) && value >= 0) pace = value;
  });
  $("record").addEventListener("change", async () => {
    const file = $("record").files[0];
    if (!file) return;
    try {
      window.qeReplay($("replay"), await api("/api/replay", await file.text()));
    } catch (error) { failed(error); }
  });
  busy = true;
  api("/api/state?since=0").then((state) => show(state, false)).catch(failed).finally(() => { busy = false; });
})();
