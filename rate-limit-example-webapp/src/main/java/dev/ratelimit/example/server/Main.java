package dev.ratelimit.example.server;

import dev.ratelimit.Clock;
import dev.ratelimit.InvalidConfigurationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.util.Map;

/**
 * Starts the example on embedded Jetty 12:
 * {@code java -jar rate-limit-example-webapp/target/rate-limit-example.jar [--port=8080] [--redis-url=...]}.
 * Settings come from flags or the environment ({@link Setting}; {@code --help} lists them). A bad
 * setting stops start-up with one line on standard error naming it, and exit code 2. SIGTERM (or
 * Ctrl-C) stops it gracefully: requests in flight finish first.
 */
public final class Main {
    /** The exit code for a bad setting or an address that cannot be listened on. */
    static final int BAD_SETTING = 2;

    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        Launch launch = launch(args, System.getenv(), System.out, System.err, Clock.system());
        if (launch.server() == null) {
            System.exit(launch.exitCode());
        }
        ExampleServer server = launch.server();
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "rate-limit-example-shutdown"));
        server.join();
    }

    /** A started server, or the exit code to end with. */
    record Launch(ExampleServer server, int exitCode) {
    }

    /**
     * Reads the settings, builds the app and starts it; never throws for a bad setting.
     *
     * @return the running server, or no server and the exit code: 0 after {@code --help},
     *         {@link #BAD_SETTING} after printing one line to {@code err}
     */
    static Launch launch(String[] args, Map<String, String> env, PrintStream out, PrintStream err, Clock clock) {
        try {
            ExampleOptions options = ExampleOptions.parse(args, env);
            if (options.help()) {
                out.print(Setting.usage());
                return new Launch(null, 0);
            }
            ExampleServer server = ExampleServer.start(ExampleApp.create(options, clock));
            Logger log = LoggerFactory.getLogger("dev.ratelimit.example");
            log.info(StartupBanner.render(server.uri(), server.app().storeDescription(), options.config(), options.configSource(),
                    options.trustedProxies()));
            server.app().storeWarning().ifPresent(log::warn);
            return new Launch(server, 0);
        } catch (OptionException | InvalidConfigurationException e) {
            err.println("rate-limit-example: " + e.getMessage() + " (--help lists every setting)");
            return new Launch(null, BAD_SETTING);
        }
    }
}
