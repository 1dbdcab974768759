package dev.ratelimit.store.redis;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.net.ConnectException;
import java.net.SocketTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which failures the store sends again on a fresh connection: only those that cannot have timed out,
 * since a call that timed out may still run and a second copy would charge the client twice, and
 * no Cluster call that Jedis itself already retried until it gave up.
 */
class TimeoutClassificationTest {

    @Test
    void aReadTimeoutAnywhereInTheCausesIsATimeout() {
        assertThat(CallFailure.isTimeout(new JedisConnectionException(new SocketTimeoutException("Read timed out")))).isTrue();
    }

    @Test
    void aClusterCallThatUsedItsWholeTimeBudgetIsATimeoutEvenWithoutACause() {
        // Jedis' executor throws this without the attempt's timeout when its back-off finds the deadline passed.
        assertThat(CallFailure.isTimeout(new JedisClusterOperationException("Cluster retry deadline exceeded."))).isTrue();
    }

    @Test
    void aClusterCallOutOfTimeAfterRefusedConnectionsIsNotATimeout() {
        assertThat(CallFailure.isTimeout(new JedisClusterOperationException("Cluster retry deadline exceeded.",
                new JedisConnectionException(new ConnectException("Connection refused"))))).isFalse();
    }

    @Test
    void aRefusedConnectionIsNotATimeout() {
        assertThat(CallFailure.isTimeout(new JedisClusterOperationException("No more cluster attempts left.",
                new JedisConnectionException(new ConnectException("Connection refused"))))).isFalse();
    }

    @Test
    void aConnectionThatBrokeFastIsSentAgain() {
        assertThat(CallFailure.sendsAgain(new JedisConnectionException("Unexpected end of stream."))).isTrue();
    }

    @Test
    void aTimedOutCallIsNeverSentAgain() {
        assertThat(CallFailure.sendsAgain(new JedisConnectionException(new SocketTimeoutException("Read timed out")))).isFalse();
    }

    @Test
    void aClusterCallJedisGaveUpOnIsNotSentAgainEvenAfterRefusedConnections() {
        // Jedis' executor already tried and backed off until its deadline: another call would start a
        // second deadline and double the worst case the README gives.
        assertThat(CallFailure.sendsAgain(new JedisClusterOperationException("Cluster retry deadline exceeded.",
                new JedisConnectionException(new ConnectException("Connection refused"))))).isFalse();
        assertThat(CallFailure.sendsAgain(new JedisClusterOperationException("No more cluster attempts left.",
                new JedisConnectionException(new ConnectException("Connection refused"))))).isFalse();
    }

    @Test
    void aDataErrorIsNotSentAgain() {
        assertThat(CallFailure.sendsAgain(new redis.clients.jedis.exceptions.JedisDataException("ERR unknown command"))).isFalse();
    }

    @Test
    void aConnectionClosedUnderTheCallBrokeAnOpenConnection() {
        assertThat(CallFailure.brokeAnOpenConnection(new JedisConnectionException("Unexpected end of stream."))).isTrue();
        assertThat(CallFailure.brokeAnOpenConnection(
                new JedisConnectionException(new java.net.SocketException("Broken pipe")))).isTrue();
    }

    @Test
    void aConnectionRefusedOrTimedOutBrokeNoOpenConnection() {
        assertThat(CallFailure.brokeAnOpenConnection(
                new JedisConnectionException("Failed to connect to 127.0.0.1:1", new ConnectException("Connection refused")))).isFalse();
        JedisConnectionException suppressed = new JedisConnectionException("Failed to connect to any host resolved for DNS name.");
        suppressed.addSuppressed(new JedisConnectionException(new ConnectException("Connection refused")));
        assertThat(CallFailure.brokeAnOpenConnection(suppressed)).as("refused, suppressed").isFalse();
        assertThat(CallFailure.brokeAnOpenConnection(
                new JedisConnectionException(new SocketTimeoutException("Read timed out")))).isFalse();
    }

    @Test
    void aReplicasReadOnlyAnswerIsTold() {
        assertThat(CallFailure.reachedAReplica(new redis.clients.jedis.exceptions.JedisDataException(
                "READONLY You can't write against a read only replica."))).as("Redis 7").isTrue();
        assertThat(CallFailure.reachedAReplica(new redis.clients.jedis.exceptions.JedisDataException(
                "ERR Error running script (call to f_5dc3): @user_script:153: @user_script: 153: "
                        + "-READONLY You can't write against a read only replica."))).as("Redis 6.2").isTrue();
        assertThat(CallFailure.reachedAReplica(new redis.clients.jedis.exceptions.JedisDataException(
                "NOREPLICAS Not enough good replicas to write."))).isFalse();
    }
}
