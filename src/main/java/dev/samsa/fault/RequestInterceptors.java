package dev.samsa.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The request interceptors in force, in the order they were installed (kfake's {@code ControlKey}). A request meets
 * them one after another: each that passes has observed it and stays; the first that acts (fails or delays it)
 * decides, and the ones after it never see the request. An interceptor is removed after its verdict unless the
 * verdict keeps it (see {@link Verdict}). Owned by the cluster loop.
 */
public final class RequestInterceptors {

    /** One installed interceptor; its identity is what {@link #remove} removes. */
    public static final class Installed {
        private final ApiKeys api;
        private final Function<InterceptedRequest, Verdict> interceptor;

        private Installed(ApiKeys api, Function<InterceptedRequest, Verdict> interceptor) {
            this.api = api;
            this.interceptor = interceptor;
        }

        private boolean sees(ApiKeys requested) {
            return api == null || api == requested;
        }
    }

    private final List<Installed> installed = new ArrayList<>();

    /** Installs {@code interceptor} after those already installed, for requests of {@code api}; null for every API. */
    public Installed add(ApiKeys api, Function<InterceptedRequest, Verdict> interceptor) {
        Installed i = new Installed(api, interceptor);
        installed.add(i);
        return i;
    }

    /** Returns whether it was still installed. */
    public boolean remove(Installed interceptor) {
        return installed.removeIf(i -> i == interceptor);
    }

    /**
     * Runs the interceptors of {@code request}'s API in order and returns the verdict of the first that acts on it,
     * or a pass. An interceptor may install or remove interceptors; those it installs see only later requests.
     */
    public Verdict intercept(InterceptedRequest request) {
        for (Installed i : List.copyOf(installed)) {
            if (!i.sees(request.api()) || !installed.contains(i)) {
                continue;
            }
            Verdict verdict = i.interceptor.apply(request);
            if (verdict == null) {
                throw new IllegalStateException("A request interceptor returned no verdict for " + request
                        + "; it must return one (a pass lets the request through)");
            }
            if (!verdict.keep()) {
                remove(i);
            }
            if (verdict.action() != Verdict.Action.PASS) {
                return verdict;
            }
        }
        return Verdict.pass();
    }

    public int size() {
        return installed.size();
    }
}
