package dev.samsa.cli.control;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.samsa.KafkaCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launcher's control endpoint ({@code --control-port}): a small HTTP/JSON API on 127.0.0.1 over the Java API of
 * one {@link KafkaCluster}, so that a test in any language can break brokers, advance the clock, read the timeline
 * and run the history check. docs/control.md lists every resource.
 *
 * <p>Each resource class registers its routes; this class only moves bytes. Errors are JSON, {@code {"status": 404,
 * "error": "Unknown broker 7; this cluster has brokers 1..3"}}: 400 for a malformed or wrong request, 404 for a name
 * the cluster does not know, 405 for a method the resource does not take, 408 for an await that ran out of time, 409
 * for an action the cluster's state refuses (crash a stopped broker, advance a system clock). Never a stack trace.
 *
 * <p>Threading: requests run on the endpoint's own threads, several at once (an await holds one); the Java API they
 * call is safe from any thread, and trigger actions run on the cluster loop.
 */
public final class ControlEndpoint implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ControlEndpoint.class);
    private static final AtomicInteger ENDPOINTS = new AtomicInteger();
    private static final int MAX_BODY_BYTES = 1 << 20;

    private final HttpServer server;
    private final ExecutorService threads;
    private final Router router = new Router();
    private final ActionResult result;

    private ControlEndpoint(KafkaCluster cluster, int port) throws IOException {
        this.result = new ActionResult(cluster);
        router.add("GET", "/", call -> Response.json(Map.of("resources", router.describe())));
        new StateResource(cluster).register(router);
        new FaultResource(cluster, result).register(router);
        new TriggerResource(cluster, router, result).register(router);
        new ClockResource(cluster, result).register(router);
        new TimelineResource(cluster).register(router);
        new AwaitResource(cluster).register(router);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        String name = "samsa-control-" + ENDPOINTS.incrementAndGet() + "-";
        AtomicInteger n = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, name + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.createContext("/", this::exchange);
        server.start();
    }

    /**
     * Serves {@code cluster} on 127.0.0.1:{@code port}; 0 picks a free port.
     *
     * @throws IOException when the port cannot be bound
     */
    public static ControlEndpoint start(KafkaCluster cluster, int port) throws IOException {
        return new ControlEndpoint(cluster, port);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:PORT}, as the launcher prints it. */
    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /** What a request gets, without the HTTP around it: for the route tests. */
    Response handle(String method, String rawPath, String rawQuery, String body) {
        try {
            return router.dispatch(method, rawPath, Call.parseQuery(rawQuery), body, result.position());
        } catch (Router.MethodNotAllowed e) {
            return Response.methodNotAllowed(e.getMessage(), e.allow());
        } catch (ControlException e) {
            return Response.error(e.status(), e.getMessage());
        } catch (IllegalArgumentException e) {
            return Response.error(400, e.getMessage());
        } catch (IllegalStateException | UnsupportedOperationException e) {
            return Response.error(409, e.getMessage());
        } catch (RuntimeException e) {
            log.warn("Control request {} {} failed", method, rawPath, e);
            return Response.error(500, e.toString());
        }
    }

    private void exchange(HttpExchange exchange) throws IOException {
        try (exchange) {
            Response response;
            if (!exchange.getRemoteAddress().getAddress().isLoopbackAddress()) {
                response = Response.error(403, "The control endpoint serves loopback clients only");
            } else if (!loopbackHost(exchange.getRequestHeaders().getFirst("Host"))) {
                // A web page the developer has open could otherwise reach it through a name that resolves to 127.0.0.1.
                response = Response.error(403, "The control endpoint answers requests for 127.0.0.1 or localhost only");
            } else {
                String body = readBody(exchange.getRequestBody());
                String method = exchange.getRequestMethod();
                String path = exchange.getRequestURI().getRawPath();
                if (body == null) {
                    response = Response.error(413, "The body is larger than " + MAX_BODY_BYTES + " bytes");
                } else {
                    response = handle(method, path, exchange.getRequestURI().getRawQuery(), body);
                }
            }
            byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", response.contentType());
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            if (response.allow() != null) {
                exchange.getResponseHeaders().set("Allow", response.allow());
            }
            exchange.sendResponseHeaders(response.status(), bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private static boolean loopbackHost(String host) {
        if (host == null) {
            return true; // HTTP/1.0
        }
        String name = host.startsWith("[") ? host.substring(0, host.indexOf(']') + 1)
                : host.contains(":") ? host.substring(0, host.lastIndexOf(':')) : host;
        return name.equals("127.0.0.1") || name.equalsIgnoreCase("localhost") || name.equals("[::1]");
    }

    /** The body as text, or null when it is larger than the endpoint takes. */
    private static String readBody(InputStream in) throws IOException {
        byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        return bytes.length > MAX_BODY_BYTES ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    /** Stops serving: open requests (an await) end, the port is released. */
    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
