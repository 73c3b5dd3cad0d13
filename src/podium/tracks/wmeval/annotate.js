// The annotator's page: both players, start-both / loop / speed, and scoring that opens only once both videos
// were watched to the end (an 'ended' event, or a loop wrapping around). Keys 0-3 score like the buttons.
(function () {
  "use strict";
  const root = document.getElementById("item");
  const videos = { generated: document.getElementById("generated"), reference: document.getElementById("reference") };
  const watched = { generated: false, reference: false };
  const buttons = Array.from(document.querySelectorAll("button.score"));
  const status = document.getElementById("watch-status");
  const flag = document.getElementById("unplayable");
  const note = document.getElementById("note");
  const flagButton = document.getElementById("submit-unplayable");
  let sending = false;

  function update() {
    const ready = watched.generated && watched.reference;
    buttons.forEach((b) => { b.disabled = !ready || sending; });
    flagButton.disabled = !flag.checked || sending;
    status.textContent = ready ? "Both videos watched: choose a score (click, or keys 0-3)."
      : "Watch both videos to the end to score (generated: " + (watched.generated ? "done" : "not yet") +
        ", reference: " + (watched.reference ? "done" : "not yet") + ").";
    root.dataset.ready = ready ? "yes" : "no";
  }

  Object.entries(videos).forEach(([name, video]) => {
    let last = 0;
    video.addEventListener("ended", () => { watched[name] = true; update(); });
    video.addEventListener("timeupdate", () => {
      if (video.loop && video.currentTime + 0.2 < last) { watched[name] = true; update(); }
      last = video.currentTime;
    });
  });

  document.getElementById("start-both").addEventListener("click", () => {
    Object.values(videos).forEach((v) => { v.currentTime = 0; v.play(); });
  });
  document.getElementById("loop").addEventListener("change", (e) => {
    Object.values(videos).forEach((v) => { v.loop = e.target.checked; });
  });
  document.getElementById("speed").addEventListener("change", (e) => {
    Object.values(videos).forEach((v) => { v.playbackRate = Number(e.target.value); });
  });
  flag.addEventListener("change", update);

  async function send(score, unplayable) {
    if (sending) return;
    sending = true;
    update();
    const answer = await fetch(root.dataset.scoreUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ score: score, note: note.value, unplayable: unplayable }),
    });
    const body = await answer.json();
    if (!answer.ok) {
      sending = false;
      status.textContent = "Not saved: " + (body.error || body.detail || answer.status);
      update();
      return;
    }
    window.location.href = body.next;
  }

  buttons.forEach((b) => b.addEventListener("click", () => send(Number(b.dataset.score), false)));
  flagButton.addEventListener("click", () => send(0, true));
  document.addEventListener("keydown", (e) => {
    if (e.target === note || !/^[0-3]$/.test(e.key)) return;
    const button = buttons.find((b) => b.dataset.score === e.key);
    if (button && !button.disabled) { e.preventDefault(); send(Number(e.key), false); }
  });
  update();
})();
