/// The page's look: a full-height map with a side panel; region and event colours by state.
enum MapPageStyle {
    static let text = #"""
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; font: 14px/1.35 system-ui, sans-serif; color: #1d2430; background: #f4f6f8; }
body { display: flex; flex-direction: column; }
header { display: flex; align-items: center; gap: 12px; padding: 6px 12px; background: #1d2430; color: #fff; }
header h1 { font-size: 16px; margin: 0; }
header nav { margin-left: auto; display: flex; gap: 6px; }
button { font: inherit; padding: 3px 10px; border: 1px solid #8894a6; border-radius: 4px; background: #fff; color: #1d2430; cursor: pointer; }
button.active { background: #2f6fde; color: #fff; border-color: #2f6fde; }
.badge { padding: 1px 8px; border-radius: 10px; background: #3a4558; font-size: 12px; }
.badge.online { background: #23824a; }
.badge.offline { background: #a33b32; }
.banner { padding: 6px 12px; background: #ffcc4d; color: #3d2d00; font-weight: 600; }
main { flex: 1; display: flex; min-height: 0; }
#map { flex: 1; height: 100%; background: #e9edf1; cursor: grab; touch-action: none; }
aside { width: 380px; overflow: auto; padding: 8px 12px; border-left: 1px solid #cdd4dc; background: #fff; }
aside h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: #5b6676; margin: 10px 0 4px; }
table { width: 100%; border-collapse: collapse; font-size: 12px; }
th, td { text-align: left; padding: 2px 4px; border-bottom: 1px solid #eef1f4; }
tr.selected td { background: #e3ecfb; }
tr.degraded td { background: #fff3d1; }
#event-list, #health-list { list-style: none; margin: 0; padding: 0; font-size: 12px; }
#event-list li { padding: 2px 0; border-bottom: 1px solid #eef1f4; cursor: pointer; }
.kind { display: inline-block; min-width: 44px; font-weight: 600; }
.event-enter .kind { color: #c0392b; }
.event-exit .kind { color: #2f6fde; }
.event-dwell .kind { color: #8e44ad; }
.grid-line { stroke: #c9d1da; stroke-width: 1; }
.grid-label { fill: #6c7888; font-size: 10px; }
.region { stroke-width: 2; fill-opacity: .18; fill-rule: evenodd; }
.region.state-inside { stroke: #c0392b; fill: #e74c3c; }
.region.state-outside { stroke: #2f6fde; fill: #5b8def; }
.region.state-unknown { stroke: #7f8c8d; fill: #95a5a6; stroke-dasharray: 5 4; }
.region-label { font-size: 11px; fill: #1d2430; }
.track { fill: none; stroke: #2f6fde; stroke-width: 2; stroke-opacity: .55; }
.accuracy { fill: #2f6fde; fill-opacity: .15; stroke: #2f6fde; stroke-opacity: .5; }
.dot { fill: #2f6fde; stroke: #fff; stroke-width: 2; }
.device.degraded .dot { fill: #e0a100; }
.device.degraded .accuracy { fill: #e0a100; stroke: #e0a100; }
.device-label { font-size: 11px; font-weight: 600; fill: #1d2430; paint-order: stroke; stroke: #fff; stroke-width: 3; }
.event-marker { stroke: #fff; stroke-width: 1.5; }
.event-marker.event-enter { fill: #c0392b; }
.event-marker.event-exit { fill: #2f6fde; }
.event-marker.event-dwell { fill: #8e44ad; }
#scale { font-size: 11px; fill: #3a4558; }
.health-ok { color: #23824a; }
.health-degraded { color: #b7791f; }
.health-failing { color: #c0392b; }

"""#
}
