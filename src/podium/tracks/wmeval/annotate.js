// The annotator's page. Both videos play, pause, scrub and step one frame together; scoring opens once both were
// watched to the end (an 'ended' event, or a loop seeking back to the start by itself), or at once on an item answered before (to
// change it). Keys: space plays or pauses both, arrows step a frame, 0-3 score, u reopens the last item answered.
// An answer that cannot be saved is never lost: it is kept in this browser and sent again until the server takes
// it (a network failure, 429 or 5xx), or shown with the server's words when the server refuses it (4xx).
(function () {
  "use strict";
  const RETRY_MAX_S = 30;
  const root = document.getElementById("item");
  const FRAME_S = 1 / (Number(root.dataset.fps) || 30);  // one frame of the generated video as served
  const url = root.dataset.scoreUrl;
  const pendingKey = "podium-wmeval-pending:" + url;
  const videos = { generated: document.getElementById("generated"), reference: document.getElementById("reference") };
  const both = Object.values(videos);
  const answeredBefore = root.dataset.answered === "yes";
  const watched = { generated: answeredBefore, reference: answeredBefore };
  const buttons = Array.from(document.querySelectorAll("button.score"));
  const status = document.getElementById("watch-status");
  const saveStatus = document.getElementById("save-status");
  const reason = document.getElementById("cant-judge");
  const note = document.getElementById("note");
  const reasonButton = document.getElementById("submit-cant-judge");
  const scrub = document.getElementById("scrub");
  const speed = document.getElementById("speed");
  const loop = document.getElementById("loop");
  let sending = false;
  let retryTimer = null;

  function update() {
    const ready = watched.generated && watched.reference;
    buttons.forEach((b) => { b.disabled = !ready || sending; });
    reasonButton.disabled = !reason.value || sending;
    status.textContent = answeredBefore ? "Answered before: choose a new score to change it (keys 0-3)."
      : ready ? "Both videos watched: choose a score (click, or keys 0-3)."
      : "Watch both videos to the end to score (generated: " + (watched.generated ? "done" : "not yet") +
        ", reference: " + (watched.reference ? "done" : "not yet") + ").";
    root.dataset.ready = ready ? "yes" : "no";
  }

  // -- playing both together ---------------------------------------------------------------------------------
  const userSeek = { generated: false, reference: false };  // a jump by the annotator is not a loop wrapping
  function seek(seconds) {
    userSeek.generated = userSeek.reference = true;
    both.forEach((v) => { v.currentTime = Math.max(0, Math.min(seconds, v.duration || seconds)); });
  }
  function playPause() {
    if (both.every((v) => v.paused || v.ended)) { both.forEach((v) => { v.play(); }); } else { both.forEach((v) => v.pause()); }
  }
  function step(frames) {
    both.forEach((v) => v.pause());
    seek(videos.generated.currentTime + frames * FRAME_S);
  }
  Object.entries(videos).forEach(([name, video]) => {
    video.addEventListener("ended", () => { watched[name] = true; update(); });
    video.addEventListener("seeked", () => {  // a looping player seeks back to the start by itself
      if (userSeek[name]) { userSeek[name] = false; } else if (video.loop) { watched[name] = true; update(); }
    });
    video.addEventListener("loadedmetadata", () => { if (name === "generated") scrub.max = String(video.duration); });
    video.addEventListener("timeupdate", () => {
      if (name === "generated" && document.activeElement !== scrub) {
        scrub.max = String(video.duration || 0);
        scrub.value = String(video.currentTime);
      }
      // two players drift apart (measured up to 0.58 s): the reference follows once it is a frame off
      const other = videos.reference;
      if (name === "generated" && !video.paused && !other.paused && !other.ended &&
          Math.abs(other.currentTime - video.currentTime) > FRAME_S && video.currentTime < (other.duration || 0)) {
        userSeek.reference = true;
        other.currentTime = video.currentTime;
      }
    });
    video.addEventListener("dblclick", (e) => { e.preventDefault(); enlarge(video); });  // a click is the player's
  });
  document.getElementById("start-both").addEventListener("click", () => { seek(0); both.forEach((v) => { v.play(); }); });
  document.getElementById("play-pause").addEventListener("click", playPause);
  document.getElementById("step-back").addEventListener("click", () => step(-1));
  document.getElementById("step-forward").addEventListener("click", () => step(1));
  scrub.addEventListener("input", () => { both.forEach((v) => v.pause()); seek(Number(scrub.value)); });

  // speed and loop are the annotator's choice, kept from item to item
  function applySettings() {
    both.forEach((v) => { v.playbackRate = Number(speed.value); v.loop = loop.checked; });
    localStorage.setItem("podium-wmeval-speed", speed.value);
    localStorage.setItem("podium-wmeval-loop", loop.checked ? "1" : "0");
  }
  // only a choice made before is applied: one made on this page before the script ran is kept
  const storedSpeed = localStorage.getItem("podium-wmeval-speed");
  const storedLoop = localStorage.getItem("podium-wmeval-loop");
  if (storedSpeed !== null) speed.value = storedSpeed;
  if (storedLoop !== null) loop.checked = storedLoop === "1";
  speed.addEventListener("change", applySettings);
  loop.addEventListener("change", applySettings);
  applySettings();

  // any view fills the window (a video on double click, a last frame on click); the same again or Escape puts it back
  function enlarge(element) {
    const open = document.querySelector(".enlarged");
    if (open) open.classList.remove("enlarged");
    if (open !== element) element.classList.add("enlarged");
  }
  document.querySelectorAll(".pair img").forEach((img) => img.addEventListener("click", () => enlarge(img)));

  // one of the reference strip's three camera views, drawn full size from the playing video
  const zoom = document.getElementById("zoom");
  const zoomCanvas = document.getElementById("zoom-view");
  let zoomedView = null;
  function drawView() {
    if (zoomedView === null) return;
    const video = videos.reference;
    const width = video.videoWidth / 3;
    if (width > 0) {
      zoomCanvas.width = width;
      zoomCanvas.height = video.videoHeight;
      zoomCanvas.getContext("2d").drawImage(video, zoomedView * width, 0, width, video.videoHeight, 0, 0, width,
                                            video.videoHeight);
    }
    requestAnimationFrame(drawView);
  }
  function showView(view) {
    zoomedView = view;
    zoom.hidden = view === null;
    if (view !== null) drawView();
  }
  document.querySelectorAll("button.view").forEach((b) => b.addEventListener("click", () => showView(Number(b.dataset.view))));
  zoom.addEventListener("click", () => showView(null));

  // -- saving ------------------------------------------------------------------------------------------------
  function say(text, kind) {
    saveStatus.textContent = text;
    saveStatus.dataset.state = kind;
  }
  function keep(answer) { localStorage.setItem(pendingKey, JSON.stringify(answer)); }
  function forget() { localStorage.removeItem(pendingKey); }

  async function send(answer, attempt) {
    clearTimeout(retryTimer);
    sending = true;
    update();
    keep(answer);  // until the server has it
    say("Saving…", "saving");
    let response = null;
    let body = {};
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(answer),
      });
      body = await response.json().catch(() => ({}));
    } catch (error) {
      response = null;
    }
    if (response && response.ok) {
      forget();
      sessionStorage.setItem("podium-wmeval-last", JSON.stringify({ page: window.location.pathname, answer: answer }));
      window.location.href = body.next;
      return;
    }
    sending = false;
    update();
    if (response === null || response.status === 429 || response.status >= 500) {
      const wait = Math.min(RETRY_MAX_S, 2 ** Math.min(attempt + 1, 5));
      const why = response === null ? "the server did not answer" : "the server answered " + response.status;
      say("Not saved yet: " + why + ". Your answer is kept in this browser and sent again in " + wait + " s.",
          "retrying");
      retryTimer = setTimeout(() => send(answer, attempt + 1), wait * 1000);
      return;
    }
    forget();  // refused for good: say why, keep the buttons for another answer
    say("Not saved: " + (body.error || JSON.stringify(body.detail) || response.status) +
        (body.fix ? " (" + body.fix + ")" : ""), "refused");
  }

  buttons.forEach((b) => b.addEventListener("click", () => send({ score: Number(b.dataset.score), note: note.value }, 0)));
  reasonButton.addEventListener("click", () => send({ cant_judge: reason.value, note: note.value }, 0));
  reason.addEventListener("change", update);

  // the last answer given on this browser: reopen its item to change it
  const last = JSON.parse(sessionStorage.getItem("podium-wmeval-last") || "null");
  const undo = document.getElementById("undo");
  if (last && last.page !== window.location.pathname) {
    undo.hidden = false;
    undo.querySelector("a").href = last.page;
  }

  document.addEventListener("keydown", (e) => {
    if (e.target === note || e.target === reason || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === " ") { e.preventDefault(); playPause(); return; }
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") { e.preventDefault(); step(e.key === "ArrowRight" ? 1 : -1); return; }
    if (e.key === "Escape") {
      const open = document.querySelector(".enlarged");
      if (open) open.classList.remove("enlarged");
      showView(null);
      return;
    }
    if (e.key === "u" && !undo.hidden) { window.location.href = undo.querySelector("a").href; return; }
    if (!/^[0-3]$/.test(e.key)) return;
    const button = buttons.find((b) => b.dataset.score === e.key);
    if (button && !button.disabled) { e.preventDefault(); send({ score: Number(e.key), note: note.value }, 0); }
  });

  update();
  root.dataset.script = "ready";  // the controls answer from here on
  const kept = localStorage.getItem(pendingKey);
  if (kept) {  // an answer this browser could not save last time: send it now
    say("Sending the answer kept from before…", "saving");
    send(JSON.parse(kept), 0);
  }
})();
