// The sentences of a polyparse page, drawn as they scroll into view: the page holds each
// sentence's HTML as a string in the JSON of #pp-data ({"sentences": [{"html", "id", "text",
// "relations", "kinds"}]}, gzip-compressed in base64) and puts BATCH of them into
// #pp-sentences at a time, those that pass the filters (#pp-relation, #pp-kind, #pp-search)
// when the page has them. The body gets data-ready once the first ones are drawn.
(function () {
  "use strict";
  var BATCH = 20;

  function unpacked() {
    var packed = atob(document.getElementById("pp-data").textContent);
    var bytes = new Uint8Array(packed.length);
    for (var i = 0; i < packed.length; i++) {
      bytes[i] = packed.charCodeAt(i);
    }
    var text = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(text).json();
  }

  function show(data) {
    var list = document.getElementById("pp-sentences");
    var more = document.getElementById("pp-more");
    var count = document.getElementById("pp-count");
    var relation = document.getElementById("pp-relation");
    var kind = document.getElementById("pp-kind");
    var search = document.getElementById("pp-search");
    var chosen = [];
    var drawn = 0;

    function passes(sentence) {
      if (relation && relation.value && sentence.relations.indexOf(relation.value) < 0) {
        return false;
      }
      if (kind && kind.value && sentence.kinds.indexOf(kind.value) < 0) {
        return false;
      }
      if (search && search.value) {
        var wanted = search.value.toLowerCase();
        return sentence.id.toLowerCase().indexOf(wanted) >= 0 ||
          sentence.text.toLowerCase().indexOf(wanted) >= 0;
      }
      return true;
    }

    function drawMore() {
      var end = Math.min(drawn + BATCH, chosen.length);
      var batch = document.createDocumentFragment();
      for (var i = drawn; i < end; i++) {
        var article = document.createElement("article");
        article.className = "pp-sentence";
        article.innerHTML = chosen[i].html;
        batch.appendChild(article);
      }
      list.appendChild(batch);
      drawn = end;
      if (count) {
        count.textContent = chosen.length + " of " + data.sentences.length + " sentences";
      }
      more.hidden = drawn >= chosen.length;
      window.requestAnimationFrame(fillScreen);
    }

    function fillScreen() {
      if (drawn < chosen.length &&
          more.getBoundingClientRect().top < window.innerHeight + 1200) {
        drawMore();
      }
    }

    function choose() {
      chosen = data.sentences.filter(passes);
      drawn = 0;
      list.textContent = "";
      drawMore();
    }

    new IntersectionObserver(function (entries) {
      if (entries.some(function (entry) { return entry.isIntersecting; })) {
        fillScreen();
      }
    }, { rootMargin: "1200px" }).observe(more);
    more.querySelector("button").addEventListener("click", drawMore);
    [relation, kind, search].forEach(function (control) {
      if (control) {
        control.addEventListener("input", choose);
      }
    });
    choose();
    document.body.setAttribute("data-ready", "1");
  }

  unpacked().then(show);
}());
