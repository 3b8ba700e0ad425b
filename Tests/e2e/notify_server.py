#!/usr/bin/python3
"""A minimal desktop notification server for the end-to-end tests.

Owns org.freedesktop.Notifications on the session bus it is started in (run it under
`dbus-run-session`), appends every Notify call as a JSON line to OUT, and writes the bus address
to ADDRESS_FILE once it is ready. Needs python3-dbus and python3-gi (Debian packages).

Usage: notify_server.py OUT ADDRESS_FILE
"""
import json
import os
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

IFACE = "org.freedesktop.Notifications"


class Server(dbus.service.Object):
    def __init__(self, bus, out):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.out = out
        self.next_id = 0

    @dbus.service.method(IFACE, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, icon, summary, body, actions, hints, timeout):
        self.next_id += 1
        with open(self.out, "a", encoding="utf-8") as f:
            f.write(json.dumps({"app_name": str(app_name), "summary": str(summary), "body": str(body)}) + "\n")
        return dbus.UInt32(self.next_id)

    @dbus.service.method(IFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["body"]

    @dbus.service.method(IFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("tk-test-notifications", "tk-agent", "1.0", "1.2")

    @dbus.service.method(IFACE, in_signature="u", out_signature="")
    def CloseNotification(self, notification_id):
        pass


def main():
    out, address_file = sys.argv[1], sys.argv[2]
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName(IFACE, bus, do_not_queue=True)  # noqa: F841 (keeps the name owned)
    Server(bus, out)
    tmp = address_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    os.rename(tmp, address_file)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
