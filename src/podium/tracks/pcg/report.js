// The PCG report's gallery: tiles are built from each team's JSON only when its section opens, so the images of
// closed sections are never decoded; the filters hide sections and tiles by team, letter and verdict.
// Plain ES2017, no library, nothing fetched: the page must work when opened from an e-mail attachment.
(function () {
  "use strict";
  var sections = Array.prototype.slice.call(document.querySelectorAll("details.team"));
  var filters = {
    team: document.getElementById("f-team"),
    letter: document.getElementById("f-letter"),
    verdict: document.getElementById("f-verdict"),
  };
  var parsed = {};

  function trials(section) {
    var id = section.getAttribute("data-blob");
    if (!parsed[id]) parsed[id] = JSON.parse(document.getElementById(id).textContent);
    return parsed[id];
  }

  function matches(trial) {
    var letter = filters.letter.value, verdict = filters.verdict.value;
    return (!letter || trial[0] === letter) && (!verdict || trial[5] === verdict);
  }

  function tile(trial) {
    var div = document.createElement("div");
    div.className = "trial" + (trial[5] === "ok" ? "" : " failed");
    div.setAttribute("data-letter", trial[0]);
    div.setAttribute("data-verdict", trial[5]);
    if (trial[7]) {
      var img = document.createElement("img");
      img.alt = trial[0] + trial[1];
      img.width = 96;
      img.height = 96;
      img.src = "data:image/png;base64," + trial[7];
      div.appendChild(img);
    } else {
      var blank = document.createElement("div");
      blank.className = "noimg";
      blank.textContent = "no image";
      div.appendChild(blank);
    }
    var caption = document.createElement("div");
    caption.textContent = trial[0] + trial[1] + " · " + trial[2];
    div.appendChild(caption);
    var detail = document.createElement("div");
    detail.textContent = "sta " + trial[3] + " · sim " + trial[4];
    div.appendChild(detail);
    var verdict = document.createElement("div");
    verdict.className = "verdict";
    verdict.textContent = trial[5];
    if (trial[6]) verdict.title = trial[6];
    div.appendChild(verdict);
    return div;
  }

  function build(section) {
    if (section.getAttribute("data-built")) return;
    section.setAttribute("data-built", "1");
    var box = section.querySelector(".trials");
    var fragment = document.createDocumentFragment();
    trials(section).forEach(function (trial) {
      var element = tile(trial);
      element.hidden = !matches(trial);
      fragment.appendChild(element);
    });
    box.appendChild(fragment);
  }

  function apply() {
    var team = filters.team.value;
    sections.forEach(function (section) {
      section.hidden = Boolean(team) && section.getAttribute("data-team") !== team;
      if (team && !section.hidden) section.open = true;
      var shown = trials(section).filter(matches).length;
      section.querySelector(".shown").textContent = shown + " shown";
      if (section.getAttribute("data-built")) {
        Array.prototype.forEach.call(section.querySelectorAll(".trial"), function (element) {
          var letter = filters.letter.value, verdict = filters.verdict.value;
          element.hidden = Boolean(letter && element.getAttribute("data-letter") !== letter) ||
            Boolean(verdict && element.getAttribute("data-verdict") !== verdict);
        });
      }
    });
  }

  sections.forEach(function (section) {
    section.addEventListener("toggle", function () {
      if (section.open) build(section);
    });
    if (section.open) build(section);
  });
  Object.keys(filters).forEach(function (name) {
    filters[name].addEventListener("change", apply);
  });
})();
