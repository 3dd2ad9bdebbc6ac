package dev.samsa.boot.readme;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application of the README's Spring section: Boot's Kafka auto-configuration and {@link OrderListener}. */
@SpringBootApplication
public class ReadmeApplication {
}
