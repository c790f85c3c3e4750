"""GeoClue 2 (Debian's geoclue-2.0) reading locus-gpsd's NMEA socket, configured with the snippet
shipped in deploy/geoclue/, on a private system D-Bus started here; GeoClue's demo client
where-am-i must print the fused position on the Locus bus."""
import os
import re
import subprocess
import time

import pytest

from conftest import REPO
from gpsd_support import Drive, FusedRecorder, Processes, start_fusion, start_gpsd

GEOCLUE = "/usr/libexec/geoclue"
DEMOS = "/usr/libexec/geoclue-2.0/demos"
SNIPPET = REPO / "deploy" / "geoclue" / "locus.conf"

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"""

# Everything but the NMEA source off (no modem, Wi-Fi or network here); the demo agent may act as
# agent, and where-am-i is allowed without asking.
GEOCLUE_CONFIG = """[agent]
whitelist=geoclue-demo-agent
[wifi]
enable=false
[3g]
enable=false
[cdma]
enable=false
[modem-gps]
enable=false
[compass]
enable=false
[geoclue-where-am-i]
allowed=true
system=true
users=
"""


@pytest.fixture
def processes(runtime_dir):
    group = Processes(runtime_dir)
    yield group
    group.stop()


def require_geoclue():
    for path in (GEOCLUE, f"{DEMOS}/where-am-i", f"{DEMOS}/agent"):
        assert os.path.exists(path), f"{path} missing: scripts/install-deps.sh installs geoclue-2.0 and geoclue-2-demo"
    # GeoClue reads its configuration from a fixed path; the test gives it its own in a private mount namespace.
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a mount namespace for GeoClue's configuration: {probe.stderr.strip()}")


def test_where_am_i_prints_the_fused_position(bus, processes, runtime_dir):
    require_geoclue()
    socket_path = runtime_dir / "nmea.sock"
    start_fusion(processes, bus, runtime_dir)
    start_gpsd(processes, bus, "--nmea-socket", str(socket_path))
    recorder = FusedRecorder(bus)
    recorder.start()
    drive = Drive(bus, interval=0.5)
    drive.start()
    try:
        # GeoClue connects once, when a client starts it: wait until there is a position to read.
        deadline = time.monotonic() + 30
        while not recorder.all():
            assert time.monotonic() < deadline, "no fused fix on the bus"
            time.sleep(0.1)

        snippet = SNIPPET.read_text()
        assert "nmea-socket=/run/locus-gpsd/nmea.sock" in snippet
        config = runtime_dir / "geoclue.conf"
        config.write_text(GEOCLUE_CONFIG + snippet.replace("/run/locus-gpsd/nmea.sock", str(socket_path)))
        bus_config = runtime_dir / "system-bus.conf"
        bus_config.write_text(BUS_CONFIG.format(socket=runtime_dir / "system_bus_socket"))
        dbus = processes.start(["dbus-daemon", "--config-file", str(bus_config), "--nofork", "--print-address"], None,
                               "dbus", stdout=subprocess.PIPE, text=True)
        address = dbus.stdout.readline().strip()
        assert address.startswith("unix:path="), processes.log("dbus")
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)
        processes.start(["unshare", "--mount", "sh", "-c",
                         f'mount --bind "{config}" /etc/geoclue/geoclue.conf && exec {GEOCLUE} --timeout 0'],
                        dict(env, G_MESSAGES_DEBUG="Geoclue"), "geoclue")
        deadline = time.monotonic() + 20
        while True:
            owner = subprocess.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.DBus", "--object-path",
                                    "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.NameHasOwner",
                                    "org.freedesktop.GeoClue2"], env=env, capture_output=True, text=True, timeout=10)
            if owner.stdout.strip() == "(true,)":
                break
            assert time.monotonic() < deadline, f"GeoClue did not start: {processes.log('geoclue')}"
            time.sleep(0.2)
        processes.start([f"{DEMOS}/agent"], env, "agent", stdout=subprocess.DEVNULL)

        client = processes.start([f"{DEMOS}/where-am-i", "--timeout", "60"], env, "where-am-i",
                                 stdout=subprocess.PIPE, text=True)
        printed = []
        latitude = None
        deadline = time.monotonic() + 60
        while len(printed) < 3 and time.monotonic() < deadline:
            line = client.stdout.readline()
            if not line:
                break
            found = re.match(r"\s*(Latitude|Longitude):\s+(-?[\d.]+)", line)
            if found and found.group(1) == "Latitude":
                latitude = float(found.group(2))
            elif found:
                printed.append((latitude, float(found.group(2))))
        client.terminate()
        print("where-am-i printed", printed)
        assert len(printed) >= 3, f"where-am-i printed {printed}; GeoClue said: {processes.log('geoclue')[-2000:]}"
        fused = recorder.all()
        for lat, lon in printed:
            # where-am-i prints 6 decimals; the NMEA it was given carries the fix to 2e-9 degrees.
            assert any(abs(fix["lat"] - lat) <= 1e-6 and abs(fix["lon"] - lon) <= 1e-6 for fix in fused), (lat, lon)
    finally:
        drive.stop()
        recorder.stop()
