// Stub: NexmarkConfiguration's fields carry this annotation.
package org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation;

public @interface JsonProperty {}
