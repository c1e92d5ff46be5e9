#!/usr/bin/env python3
"""The regression report of three nights about one regression (new, still,
fixed), as test-nightly-mail writes them, read by Python's email parser as
a mail reader would: each parses under the default (RFC 5322) policy
without defects, has From, To, Date, Message-ID, MIME-Version and a UTF-8
text/plain body, its Subject decodes (RFC 2047) to the kernel's name, no
header was injected from data, and the nights thread: In-Reply-To of
night 2 is night 1's Message-ID, night 3 replies to night 2 and References
lists the thread from its start.

Arguments: the test-nightly-mail binary."""
import email.parser
import email.policy
import email.utils
import os
import subprocess
import sys
import tempfile

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def main():
    with tempfile.TemporaryDirectory(prefix="kbench-mail-") as d:
        p = subprocess.run([sys.argv[1]], env=dict(os.environ, KBENCH_MAIL_OUT=d), capture_output=True, text=True,
                           timeout=60)
        expect(p.returncode == 0, f"test-nightly-mail writes the nights: {p.returncode} {p.stderr[-2000:]}")
        msgs = []
        for night in (1, 2, 3):
            with open(os.path.join(d, f"night{night}.eml"), "rb") as f:
                msgs.append(email.parser.BytesParser(policy=email.policy.default).parse(f))
    for night, m in enumerate(msgs, 1):
        expect(not m.defects, f"night {night} parses without defects: {m.defects}")
        for h in ("From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type",
                  "Content-Transfer-Encoding"):
            expect(m[h] is not None, f"night {night} has {h}")
        expect("Bcc" not in m and m.get_all("From") and len(m.get_all("From")) == 1,
               f"night {night}: no header injected from the configuration: {m.keys()}")
        expect(m.get_content_type() == "text/plain" and m.get_content_charset() == "utf-8"
               and m["MIME-Version"] == "1.0", f"night {night} is UTF-8 text: {m['Content-Type']}")
        expect(email.utils.parsedate_to_datetime(m["Date"]).timestamp() == 1796263200 + (night - 1) * 86400,
               f"night {night}'s Date is the night: {m['Date']}")
        expect("6.1.0-58-café" in str(m["Subject"]), f"night {night}'s Subject decodes: {m['Subject']!r}")
        expect(m["To"].addresses[0].addr_spec == "kernel-team@example.org", f"To: {m['To']}")
        body = m.get_content()
        expect("6.1.0-58-café" in body, f"night {night}'s body is UTF-8 text")
    first, second, third = msgs
    expect(first["In-Reply-To"] is None and first["References"] is None, "night 1 starts the thread")
    expect(second["In-Reply-To"] == first["Message-ID"], f"night 2 replies to night 1: {second['In-Reply-To']} "
           f"{first['Message-ID']}")
    expect(third["In-Reply-To"] == second["Message-ID"], "night 3 replies to night 2")
    expect(str(third["References"]).split() == [first["Message-ID"], second["Message-ID"]],
           f"night 3's References is the thread: {third['References']}")
    expect(len({m["Message-ID"] for m in msgs}) == 3, "each night's message has its own ID")
    expect(str(second["Subject"]).startswith("Re: ") and "fixed" in str(third["Subject"]),
           f"the subjects: {[str(m['Subject']) for m in msgs]}")
    body = first.get_content()
    for want in ("AMD EPYC 7B13", "23.5 GiB RAM", "tcg", "Linux version 6.1.0-57-amd64", "CONFIG_HZ: 250 -> 1000",
                 "bisection steps:", "2 probe 6.1.0-57-amd64: good"):
        expect(want in body, f"night 1's body says {want!r}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
