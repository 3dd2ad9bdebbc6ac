package dev.samsa.cluster;

/**
 * A request parked until something happens (an append, a high-watermark move) or its timeout passes. Runs on the
 * cluster loop only.
 */
public abstract class DelayedOperation {

    private boolean completed;

    /** Completes the operation if its condition now holds; returns whether it did. */
    public abstract boolean tryComplete();

    /** Answers with what there is, because the wait is over. */
    protected abstract void onComplete();

    public final boolean forceComplete() {
        if (completed) {
            return false;
        }
        completed = true;
        onComplete();
        return true;
    }

    public final boolean isCompleted() {
        return completed;
    }
}
