#!/usr/bin/env python3
"""deploy/prometheus and deploy/grafana against a real Prometheus and a real topoplaced.

Starts topoplaced (embedded fabric, a fresh SQLite file) with /metrics on loopback and
Debian's Prometheus scraping it every second with the alerting rules loaded; then checks:
  - Prometheus loaded every rule of topoplace-alerts.yml and evaluates each without error;
  - every query of every dashboard panel is accepted by Prometheus's query engine, the
    ledger panels return the daemon's series (one writable replica, the leader) and the
    capacity panels the empty fabric's;
  - the dashboard's structure: a datasource variable every panel uses, unique panel ids,
    panels inside Grafana's 24 columns.
promtool's own checks (check rules, test rules) run as their own ctest.

usage: check_monitoring.py TOPOPLACED DEPLOY_DIR
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

# free_port: the shared rule for a child's port (tests/testing/free_port.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testing"))
from free_port import free_port  # noqa: E402


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        body = e.read()
        try:
            return json.loads(body)
        except ValueError:  # "Service Unavailable" while Prometheus starts
            return {"status": "error", "error": body.decode(errors="replace")}


def query(prometheus, expr):
    return get(f"http://{prometheus}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))


def wait_for(what, done, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if done():
            return
        time.sleep(0.25)
    fail("timed out waiting for " + what)


def panels_of(dashboard):
    for panel in dashboard["panels"]:
        yield panel
        yield from panel.get("panels", [])


def check_structure(dashboard):
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    if variables.get("datasource", {}).get("type") != "datasource":
        fail("dashboard: expected a 'datasource' variable of type datasource")
    ids = set()
    exprs = []
    for panel in panels_of(dashboard):
        if panel["id"] in ids:
            fail(f"dashboard: panel id {panel['id']} used twice")
        ids.add(panel["id"])
        grid = panel["gridPos"]
        if grid["x"] < 0 or grid["x"] + grid["w"] > 24:
            fail(f"dashboard: panel '{panel['title']}' leaves the 24 columns: {grid}")
        if panel["type"] == "row":
            continue
        if panel.get("datasource", {}).get("uid") != "${datasource}":
            fail(f"dashboard: panel '{panel['title']}' does not use the datasource variable")
        if not panel.get("targets"):
            fail(f"dashboard: panel '{panel['title']}' has no query")
        for target in panel["targets"]:
            exprs.append((panel["title"], target["expr"]))
    return exprs


def main():
    topoplaced, deploy = sys.argv[1], sys.argv[2]
    prometheus_bin = shutil.which("prometheus")
    if prometheus_bin is None:
        print("SKIP: prometheus is not installed (Debian package 'prometheus')")
        return 77
    with open(os.path.join(deploy, "grafana", "topoplace-dashboard.json")) as f:
        dashboard = json.load(f)
    exprs = check_structure(dashboard)
    rules = os.path.join(deploy, "prometheus", "topoplace-alerts.yml")

    work = tempfile.mkdtemp(prefix="topoplace-monitoring-")
    processes = []
    try:
        metrics_port = free_port()
        daemon = subprocess.Popen(
            [topoplaced, "--db", os.path.join(work, "t.db"), "--listen", "127.0.0.1:0",
             "--metrics-listen", f"127.0.0.1:{metrics_port}"],
            stdout=open(os.path.join(work, "daemon.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(daemon)
        web = f"127.0.0.1:{free_port()}"
        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write(
                "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                f"rule_files:\n  - {rules}\n"
                "scrape_configs:\n  - job_name: topoplace\n    static_configs:\n"
                f"      - targets: ['127.0.0.1:{metrics_port}']\n")
        prometheus = subprocess.Popen(
            [prometheus_bin, f"--config.file={config}",
             f"--storage.tsdb.path={os.path.join(work, 'tsdb')}", f"--web.listen-address={web}"],
            stdout=open(os.path.join(work, "prometheus.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(prometheus)

        def scraped():
            try:
                r = query(web, "topoplace_ledger_writable")
            except OSError:
                return False
            return r.get("status") == "success" and len(r["data"]["result"]) == 1
        wait_for("Prometheus to scrape topoplaced", scraped)

        # Every rule the file defines, however many it has now.
        with open(rules) as f:
            defined = sum(1 for line in f if line.strip().startswith("- alert:"))

        def rules_evaluated():
            r = get(f"http://{web}/api/v1/rules")
            if r.get("status") != "success":
                return False
            groups = r["data"]["groups"]
            found = [rule for g in groups for rule in g["rules"]]
            return len(found) == defined and all(
                rule.get("lastEvaluation", "").startswith("20") for rule in found)
        wait_for("every rule to be evaluated", rules_evaluated)
        for group in get(f"http://{web}/api/v1/rules")["data"]["groups"]:
            for rule in group["rules"]:
                if rule["health"] != "ok":
                    fail(f"rule {rule['name']}: {rule['health']} {rule.get('lastError')}")
        print(f"ok: Prometheus loaded and evaluates the {defined} alerting rules")

        for title, expr in exprs:
            r = query(web, expr)
            if r.get("status") != "success":
                fail(f"panel '{title}': Prometheus refuses {expr!r}: {r.get('error')}")
        print(f"ok: Prometheus runs all {len(exprs)} dashboard queries")
        expect = {"sum(topoplace_ledger_writable)": "1", 'max by (state) (topoplace_allocations)': "0"}
        for expr, value in expect.items():
            result = query(web, expr)["data"]["result"]
            if not result or any(sample["value"][1] != value for sample in result):
                fail(f"{expr}: expected {value} from the running daemon, got {result}")
        print("ok: the ledger panels show the running daemon (writable, nothing allocated)")
        # Nothing allocated: the whole fabric is free, and the cluster's largest whole-host
        # job is every GPU.
        free = query(web, 'max(topoplace_free_gpus{level="cluster"})')["data"]["result"]
        largest = query(web, 'max(topoplace_largest_placeable_gpus{level="cluster"})')["data"]["result"]
        if not free or not largest or float(free[0]["value"][1]) <= 0 or \
                free[0]["value"][1] != largest[0]["value"][1]:
            fail(f"capacity: free GPUs {free} and the largest placeable job {largest} should "
                 "both be the whole empty fabric")
        print(f"ok: the capacity panels show the empty fabric ({free[0]['value'][1]} GPUs free, "
              "all placeable in one job)")
        return 0
    finally:
        for p in processes:
            p.send_signal(signal.SIGTERM)
        for p in processes:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
