"use strict";
// The play page: shows the events the server sends (the person's seat view after each decision, the
// narration), one at a time at the chosen pace, then the person's legal moves as buttons (data-action).
(() => {
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);
  const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
  let pace = null;

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
      if (kind) div.className = kind;
      $("log").appendChild(div);
    }
    $("log").scrollTop = $("log").scrollHeight;
  }

  function failed(error) {
    $("error").textContent = String(error.message || error);
  }

  async function show(state, animate) {
    $("moves").replaceChildren();
    $("over").hidden = true;
    $("over").removeAttribute("data-game-over");
    $("error").textContent = "";
    $("title").textContent = `${state.title}: you are player_${state.seat}`;
    if (pace === null) {
      pace = state.pace;
      $("pace").value = pace;
    }
    state.events.forEach((event, i) => event.last = i === state.events.length - 1);
    for (const event of state.events) {
      $("table").innerHTML = event.svg;
      log(event.lines, event.reveal ? "reveal" : "");
      if (animate && !event.last && pace > 0) await sleep((event.reveal ? 3 : 1) * pace * 1000);
    }
    if (state.over) {
      $("result").textContent = state.result || "Game over.";
      $("over").hidden = false;
      $("over").setAttribute("data-game-over", "");
    }
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
      button.addEventListener("click", () => play(move.action));
      $("moves").appendChild(button);
    }
    $("status").textContent = state.moves.length ? "Your move." : "";
  }

  async function play(action) {
    for (const button of $("moves").querySelectorAll("button")) button.disabled = true;
    $("status").textContent = "...";
    try {
      await show(await api("/api/move", { action }), true);
    } catch (error) {
      failed(error);
      for (const button of $("moves").querySelectorAll("button")) button.disabled = false;
    }
  }

  $("new").addEventListener("click", async () => {
    try {
      const state = await api("/api/new", {});
      $("log").replaceChildren();
      await show(state, false);
    } catch (error) { failed(error); }
  });
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
  api("/api/state?since=0").then((state) => show(state, false)).catch(failed);
})();
