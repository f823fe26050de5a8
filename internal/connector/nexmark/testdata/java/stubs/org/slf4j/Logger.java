// Stub for NexmarkUtils' logger.
package org.slf4j;

public interface Logger {}
