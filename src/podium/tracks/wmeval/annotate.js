// The annotator's page: both players, start-both / loop / speed, and scoring that opens only once both videos
// were watched to the end (an 'ended' event, or a loop wrapping around). Keys 0-3 score like the buttons.
(function () {
  "use strict";
  const root = document.getElementById("item");
  const videos = { generated: document.getElementById("generated"), reference: document.getElementById("reference") };
  const watched = { generated: false, reference: false };
  const buttons = Array.from(document.querySelectorAll("button.score"));
  const status = document.getElementById("watch-status");
  const reason = document.getElementById("cant-judge");
  const note = document.getElementById("note");
  const reasonButton = document.getElementById("submit-cant-judge");
  let sending = false;

  function update() {
    const ready = watched.generated && watched.reference;
    buttons.forEach((b) => { b.disabled = !ready || sending; });
    reasonButton.disabled = !reason.value || sending;
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
  reason.addEventListener("change", update);

  // answer: {score: 0-3} or {cant_judge: reason}; the note goes with either
  async function send(answer) {
    if (sending) return;
    sending = true;
    update();
    const response = await fetch(root.dataset.scoreUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(Object.assign({ note: note.value }, answer)),
    });
    const body = await response.json();
    if (!response.ok) {
      sending = false;
      update();
      status.textContent = "Not saved: " + (body.error || JSON.stringify(body.detail) || response.status);
      return;
    }
    window.location.href = body.next;
  }

  buttons.forEach((b) => b.addEventListener("click", () => send({ score: Number(b.dataset.score) })));
  reasonButton.addEventListener("click", () => send({ cant_judge: reason.value }));
  document.addEventListener("keydown", (e) => {
    if (e.target === note || !/^[0-3]$/.test(e.key)) return;
    const button = buttons.find((b) => b.dataset.score === e.key);
    if (button && !button.disabled) { e.preventDefault(); send({ score: Number(e.key) }); }
  });
  update();
})();
