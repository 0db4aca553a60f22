package dev.mnemograph.neo4j;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.server.CommunityBootstrapper;

/**
 * Runs a real Neo4j Community server (Bolt, HTTP and Neo4j Browser) from Maven artifacts.
 *
 * <p>Usage: {@code LocalNeo4j HOME_DIR [setting=value ...]}. Settings are Neo4j's own names.
 * When the environment variable {@code NEO4J_PASSWORD} is set, auth is on and the
 * {@code neo4j} user gets that password; otherwise auth is off. Stops cleanly on SIGTERM.
 */
public final class LocalNeo4j {
  private LocalNeo4j() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: LocalNeo4j HOME_DIR [setting=value ...]");
      System.exit(2);
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    Path conf = home.resolve("conf").resolve("neo4j.conf");
    Files.createDirectories(conf.getParent());
    if (!Files.exists(conf)) {
      Files.writeString(conf, "# settings come from the command line of LocalNeo4j\n");
    }
    Map<String, String> settings = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq <= 0) {
        System.err.println("not a setting=value pair: " + args[i]);
        System.exit(2);
      }
      settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    String password = System.getenv("NEO4J_PASSWORD");
    boolean auth = password != null && !password.isEmpty();
    settings.put("dbms.security.auth_enabled", Boolean.toString(auth));

    CommunityBootstrapper server = new CommunityBootstrapper();
    int status = server.start(home, conf, settings, false, false);
    if (status != 0) {
      System.err.println("Neo4j failed to start, status " + status);
      System.exit(status);
    }
    if (auth) {
      server
          .getDatabaseManagementService()
          .database("system")
          .executeTransactionally(
              "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
              Map.of("password", password));
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.stop();
                  stopped.countDown();
                },
                "neo4j-shutdown"));
    System.out.println("Neo4j started");
    stopped.await();
  }
}
