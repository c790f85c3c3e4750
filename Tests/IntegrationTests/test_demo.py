"""`locus demo` end to end: the real stack, the embedded drive, a summary and a map."""
import subprocess
import xml.dom.minidom

from conftest import bin_dir


def test_demo_shows_enter_exit_notification_and_writes_the_map(tmp_path):
    output = tmp_path / "out"
    result = subprocess.run([str(bin_dir() / "locus"), "demo", "--output", str(output)],
                            capture_output=True, text=True, timeout=400)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    text = result.stdout
    assert ">> ENTER store" in text and ">> EXIT store" in text
    assert "✉" in text
    assert "(dead reckoning)" in text, "the outage is bridged by dead reckoning"
    assert f"map: {output}/map.svg" in text
    svg = (output / "map.svg").read_text()
    xml.dom.minidom.parseString(svg)
    assert "enter store" in svg and 'class="region"' in svg
    notifications = (output / "notifications.jsonl").read_text().splitlines()
    assert len(notifications) >= 2
    assert (output / "run.log").stat().st_size > 0
