package dev.ratelimit.example.client;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read as UTF-8 text up to a number of bytes: a longer one fails the exchange with an
 * {@link IOException} and stops reading, so a server (or anyone on a plain-HTTP path) cannot exhaust
 * the client's memory by streaming a body without end.
 */
final class LimitedBody implements HttpResponse.BodySubscriber<String> {
    private final long maxBytes;
    private final CompletableFuture<String> body = new CompletableFuture<>();
    private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    private Flow.Subscription subscription;

    private LimitedBody(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** A handler whose bodies are at most {@code maxBytes} bytes. */
    static HttpResponse.BodyHandler<String> atMost(long maxBytes) {
        return info -> new LimitedBody(maxBytes);
    }

    @Override
    public CompletionStage<String> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (body.isDone()) {
            return;
        }
        for (ByteBuffer buffer : buffers) {
            if (bytes.size() + (long) buffer.remaining() > maxBytes) {
                subscription.cancel();
                body.completeExceptionally(new IOException("response body longer than " + maxBytes + " bytes"));
                return;
            }
            byte[] chunk = new byte[buffer.remaining()];
            buffer.get(chunk);
            bytes.writeBytes(chunk);
        }
    }

    @Override
    public void onError(Throwable error) {
        body.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        body.complete(bytes.toString(StandardCharsets.UTF_8));
    }
}
