package io.reliableudp.demo.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The whole demo started in the test's JVM, as its one command starts it (DemoApplication, random
 * free ports), with small helpers to read its JSON; closing it runs the fleet's stop and keeps the verdict.
 */
final class RunningDemo implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    final ConfigurableApplicationContext context;
    final String url;
    private final Fleet fleet;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    RunningDemo(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "--server.port=0";
        System.arraycopy(args, 0, all, 1, args.length);
        context = new SpringApplicationBuilder(DemoApplication.class).run(all);
        fleet = context.getBean(Fleet.class);
        url = "http://127.0.0.1:" + context.getEnvironment().getRequiredProperty("local.server.port") + "/";
    }

    /** GET a path of the demo as JSON. */
    JsonNode json(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError("GET /" + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    /** GET a path of the demo as text. */
    String text(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Stops the demo now (the fleet's stop: drain, summary, verdict); {@link #close()} afterwards does nothing. */
    void stop() {
        context.close();
    }

    /** The fleet's verdict after {@link #stop()}: every reliable message delivered in order or failed with a reason. */
    Boolean verdict() {
        return fleet.verdict();
    }

    @Override
    public void close() {
        context.close();
    }
}
