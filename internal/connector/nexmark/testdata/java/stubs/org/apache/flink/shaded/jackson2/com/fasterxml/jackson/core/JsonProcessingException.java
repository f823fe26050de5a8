// Stub for NexmarkConfiguration.toString.
package org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core;

public class JsonProcessingException extends Exception {}
