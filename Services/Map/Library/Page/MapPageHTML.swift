/// The page: a map (SVG) beside a panel of devices, events and services. Everything it
/// loads comes from the same server; the markup holds no data, only the places the
/// script fills with text nodes (never markup), so names from the bus cannot inject HTML.
enum MapPageHTML {
    static let text = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Locus map</title>
<link rel="stylesheet" href="/map.css">
<script src="/map.js" defer></script>
</head>
<body data-connected="false" data-messages="0" data-mode="fit">
<header>
  <h1>Locus map</h1>
  <span id="accuracy-badge" class="badge"></span>
  <span id="connection" class="badge offline">connecting…</span>
  <nav>
    <button id="fit" type="button" title="Show all devices, regions and events">Fit all</button>
    <button id="follow" type="button" title="Keep the selected device in the centre">Follow</button>
    <button id="zoom-in" type="button" title="Zoom in">+</button>
    <button id="zoom-out" type="button" title="Zoom out">−</button>
  </nav>
</header>
<div id="banner" class="banner" hidden></div>
<main>
  <svg id="map" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Map of devices and regions">
    <g id="tiles"></g>
    <g id="grid"></g>
    <g id="regions"></g>
    <g id="tracks"></g>
    <g id="event-markers"></g>
    <g id="devices"></g>
    <text id="scale" x="12" y="20"></text>
  </svg>
  <aside>
    <section>
      <h2>Devices</h2>
      <table id="device-table">
        <thead><tr><th>device</th><th>accuracy</th><th>source</th><th>activity</th><th>last fix</th></tr></thead>
        <tbody></tbody>
      </table>
    </section>
    <section>
      <h2>Events</h2>
      <ol id="event-list"></ol>
    </section>
    <section>
      <h2>Services</h2>
      <ul id="health-list"></ul>
    </section>
  </aside>
</main>
</body>
</html>

"""#
}
