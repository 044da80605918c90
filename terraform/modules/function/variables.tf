variable "function_name" {
  description = "Name of the Lambda function, also used for its role and log group."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]{1,64}$", var.function_name))
    error_message = "function_name must be 1-64 letters, digits, '-' or '_' (a Lambda function name)."
  }
}

variable "description" {
  description = "What the function does (from its function.properties)."
  type        = string
}

variable "handler" {
  description = "Lambda handler (function.handler in function.properties); ignored by provided.al2023 but required."
  type        = string
}

variable "memory_mb" {
  description = "Memory in MB (function.memory-mb)."
  type        = number

  validation {
    condition     = var.memory_mb >= 128 && var.memory_mb <= 10240
    error_message = "memory_mb must be between 128 and 10240 (Lambda's limits); fix function.memory-mb."
  }
}

variable "timeout_seconds" {
  description = "Timeout in seconds (function.timeout-seconds)."
  type        = number

  validation {
    condition     = var.timeout_seconds >= 1 && var.timeout_seconds <= 900
    error_message = "timeout_seconds must be between 1 and 900 (Lambda's limits); fix function.timeout-seconds."
  }
}

variable "runtime" {
  description = "java17 or java21 for the JVM-mode zip, provided.al2023 for the native zip."
  type        = string

  validation {
    condition     = contains(["java17", "java21", "provided.al2023"], var.runtime)
    error_message = "runtime must be java17 or java21 (JVM zip) or provided.al2023 (native zip)."
  }
}

variable "architecture" {
  description = "Instruction set of the zip: x86_64 or arm64 (a native zip runs only on the one it was built for)."
  type        = string

  validation {
    condition     = contains(["x86_64", "arm64"], var.architecture)
    error_message = "architecture must be x86_64 or arm64."
  }
}

variable "package_path" {
  description = "Local path of the function.zip built by ./mvnw package -Dfunction=<name>."
  type        = string

  validation {
    condition     = fileexists(var.package_path)
    error_message = "No function zip at the package path: build it first (repository root) with ./mvnw -B package -DskipTests -Dfunction=<name> [-Dnative], or set artifact_dir."
  }
}

variable "artifact_bucket" {
  description = "S3 bucket the zip is uploaded to (Lambda takes zips over 50 MB only from S3)."
  type        = string
}

variable "subnet_ids" {
  description = "Private subnets the function runs in."
  type        = list(string)

  validation {
    condition     = length(var.subnet_ids) > 0
    error_message = "subnet_ids must name at least one subnet."
  }
}

variable "security_group_ids" {
  description = "Security groups of the function's network interfaces."
  type        = list(string)
}

variable "log_retention_days" {
  description = "Days CloudWatch keeps the function's logs."
  type        = number
}

variable "environment" {
  description = "Environment variables of the function. Never secret values: secrets are passed by ARN."
  type        = map(string)
}

variable "policy_json" {
  description = "The function's own IAM policy (least privilege, scoped by ARN), attached to its role inline."
  type        = string
}

variable "managed_policy_arns" {
  description = "AWS-managed policies to attach, only for actions IAM cannot scope to resources."
  type        = list(string)
  default     = []
}

variable "snap_start" {
  description = "Publish a version with Lambda SnapStart and put the live alias on it (JVM runtimes only)."
  type        = bool
  default     = false

  validation {
    condition     = !var.snap_start || startswith(var.runtime, "java")
    error_message = "snap_start needs a Java runtime (java21): native executables have nothing to snapshot."
  }
}
