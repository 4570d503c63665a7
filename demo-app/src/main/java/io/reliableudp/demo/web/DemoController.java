package io.reliableudp.demo.web;

import io.reliableudp.demo.node.Ledger;
import io.reliableudp.link.LinkConditionerConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The page's own API, beside the actuator: {@code GET /demo/state} (per rover what the ledger knows:
 * positions sent/delivered/failed/lost/out of order, delivery latency percentiles, frames, telemetry,
 * queries; the TCP lane's latency and how its loss is made), and the kill/restart controls
 * ({@code POST /demo/rovers/{name}/kill}, {@code .../restart}). Link settings go through the
 * actuator's {@code reliableudp} write operation, not through here.
 */
@RestController
class DemoController {

    private final Fleet fleet;
    private final Ledger ledger;

    DemoController(Fleet fleet, Ledger ledger) {
        this.fleet = fleet;
        this.ledger = ledger;
    }

    @GetMapping("/demo/state")
    Map<String, Object> state() {
        long now = System.nanoTime();
        Map<String, Object> rovers = new LinkedHashMap<>();
        for (String name : fleet.roverNames()) {
            Ledger.Rover r = ledger.rover(name);
            Ledger.Totals t = r.totals();
            long[] q = r.queries();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("alive", fleet.alive(name));
            m.put("epoch", fleet.epoch(name));
            m.put("positionsSent", t.positionsSent);
            m.put("positionsAcked", t.positionsAcked);
            m.put("positionsDelivered", t.positionsDelivered);
            m.put("positionsFailed", t.positionsFailed);
            m.put("positionsPending", t.positionsPending);
            m.put("positionsInTransit", t.positionsUndelivered);
            m.put("outOfOrder", t.outOfOrder);
            m.put("inOrder", t.inOrder());
            m.put("framesSent", t.framesSent);
            m.put("framesDelivered", t.framesDelivered);
            m.put("framesFailed", t.framesFailed);
            m.put("framesCorrupt", t.framesCorrupt);
            m.put("telemetrySent", r.telemetrySent());
            m.put("telemetryReceived", r.telemetryReceived());
            m.put("queries", q[0]);
            m.put("replies", q[1]);
            m.put("queryFailures", q[2]);
            m.put("failures", t.failures);
            m.put("latencyMillis", finite(r.positionLatency().percentiles(now)));
            rovers.put(name, m);
        }
        LinkConditionerConfig c = fleet.nodes().get("rover-1").conditioner();
        Map<String, Object> tcp = new LinkedHashMap<>();
        for (TcpLane lane : fleet.tcp()) {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("mode", lane.mode());
            l.put("description", lane.description());
            l.put("lossProbability", c == null ? 0 : c.lossProbability());
            l.put("sent", lane.sent());
            l.put("delivered", lane.delivered());
            l.put("latencyMillis", finite(ledger.lane(lane.name()).percentiles(now)));
            tcp.put(lane.name(), l);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("windowSeconds", Ledger.WINDOW_NANOS / 1_000_000_000L);
        out.put("rovers", rovers);
        out.put("tcp", tcp);
        return out;
    }

    /** NaN (no samples in the window) becomes null: JSON has no NaN. */
    private static Map<String, Double> finite(Map<String, Double> in) {
        Map<String, Double> out = new LinkedHashMap<>();
        in.forEach((k, v) -> out.put(k, v.isNaN() ? null : v));
        return out;
    }

    @PostMapping("/demo/rovers/{name}/kill")
    ResponseEntity<Map<String, Object>> kill(@PathVariable String name) {
        return control(name, true);
    }

    @PostMapping("/demo/rovers/{name}/restart")
    ResponseEntity<Map<String, Object>> restart(@PathVariable String name) {
        return control(name, false);
    }

    private ResponseEntity<Map<String, Object>> control(String name, boolean kill) {
        if (!fleet.roverNames().contains(name)) {
            return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", "no rover named '" + name + "'"));
        }
        boolean changed = kill ? fleet.kill(name) : fleet.restart(name);
        return ResponseEntity.ok(Map.of("rover", name, "changed", changed, "alive", fleet.alive(name), "epoch", fleet.epoch(name)));
    }
}
