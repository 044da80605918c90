variable "name" {
  description = "Name of this deployment: prefix of every resource name (functions are <name>-stream-api, <name>-ingest, <name>-backfill)."
  type        = string
  default     = "tributary"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,30}[a-z0-9]$", var.name))
    error_message = "name must be 3-32 lower-case letters, digits or '-', starting with a letter (it prefixes S3 bucket and Lambda names)."
  }
}

variable "aws_region" {
  description = "AWS region to deploy to."
  type        = string

  validation {
    condition     = can(regex("^[a-z]{2}(-gov)?-[a-z]+-[0-9]$", var.aws_region))
    error_message = "aws_region must be a region code such as eu-west-1."
  }
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "artifact_dir" {
  description = "Directory holding <function>/function.zip, as built by ./mvnw package -Dfunction=<function> [-Dnative]."
  type        = string
  default     = "../target"
}

variable "lambda_runtime" {
  description = "How the function zips in artifact_dir were built: native (-Dnative, runtime provided.al2023) or jvm (JVM mode, runtime java21 with Lambda SnapStart on stream-api and backfill; see README.md)."
  type        = string
  default     = "native"

  validation {
    condition     = contains(["native", "jvm"], var.lambda_runtime)
    error_message = "lambda_runtime must be native (zips built with ./mvnw package -Dnative -Dfunction=...) or jvm (zips built without -Dnative)."
  }
}

variable "function_architecture" {
  description = "Instruction set of the functions; a native zip must have been built on the same one."
  type        = string
  default     = "x86_64"

  validation {
    condition     = contains(["x86_64", "arm64"], var.function_architecture)
    error_message = "function_architecture must be x86_64 or arm64."
  }
}

variable "log_retention_days" {
  description = "Days CloudWatch keeps function and API access logs."
  type        = number
  default     = 30

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_days)
    error_message = "log_retention_days must be one of CloudWatch's retention values: 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288 or 3653."
  }
}

variable "vpc_cidr" {
  description = "CIDR block of the VPC created for the functions, the database and its proxy."
  type        = string
  default     = "10.40.0.0/16"

  validation {
    condition     = can(cidrhost(var.vpc_cidr, 0)) && tonumber(split("/", var.vpc_cidr)[1]) <= 20
    error_message = "vpc_cidr must be an IPv4 CIDR block of /20 or larger, e.g. 10.40.0.0/16."
  }
}

variable "availability_zone_count" {
  description = "Number of availability zones for the private subnets (2 or 3)."
  type        = number
  default     = 2

  validation {
    condition     = var.availability_zone_count >= 2 && var.availability_zone_count <= 3
    error_message = "availability_zone_count must be 2 or 3."
  }
}

variable "enable_nat_gateway" {
  description = "Give the private subnets a NAT gateway, for Kafka clusters, schema registries and AWS APIs outside the VPC."
  type        = bool
  default     = true
}

variable "interface_endpoints" {
  description = "AWS services to reach through VPC interface endpoints; without a NAT gateway at least secretsmanager and lambda are needed."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for s in var.interface_endpoints : contains(["secretsmanager", "lambda", "sts", "kms", "kafka"], s)])
    error_message = "interface_endpoints may contain secretsmanager, lambda, sts, kms and kafka."
  }
}

variable "kafka_ports" {
  description = "TCP port range of the Kafka brokers (MSK uses 9092-9098)."
  type        = object({ from = number, to = number })
  default     = { from = 9092, to = 9098 }

  validation {
    condition     = var.kafka_ports.from >= 1 && var.kafka_ports.from <= var.kafka_ports.to && var.kafka_ports.to <= 65535
    error_message = "kafka_ports must be a range with 1 <= from <= to <= 65535."
  }
}

variable "schema_registry_ports" {
  description = "TCP ports of the schema registries streams use (a connection's schema_registry_url), besides 443, which is always open: stream-api reads a subject at create and ingest fetches the schemas its records name. 8081 is Confluent Schema Registry's default."
  type        = list(number)
  default     = [8081]

  validation {
    condition     = alltrue([for p in var.schema_registry_ports : p >= 1 && p <= 65535 && floor(p) == p])
    error_message = "schema_registry_ports must be TCP ports (1-65535)."
  }
}

variable "kafka_security_group_ids" {
  description = "Security groups of Kafka clusters (such as MSK clusters) that must admit the functions on kafka_ports."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for g in var.kafka_security_group_ids : can(regex("^sg-[0-9a-f]{8,17}$", g))])
    error_message = "kafka_security_group_ids must be security group IDs (sg-...)."
  }
}

variable "msk_cluster_arns" {
  description = "Amazon MSK clusters streams may read from; the ingest role may read their topics and use their consumer groups (IAM authentication). Self-managed clusters need no entry."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for a in var.msk_cluster_arns : can(regex("^arn:aws[a-z-]*:kafka:[a-z0-9-]+:[0-9]{12}:cluster/[^/]+/[^/]+$", a))])
    error_message = "msk_cluster_arns must be MSK cluster ARNs: arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>."
  }
}

variable "backfill_source_bucket_arns" {
  description = "S3 buckets holding backfill source tables outside the warehouse; stream-api and backfill may read them, and stream-api may register tables there (TRIBUTARY_EXTERNAL_LOCATIONS)."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for a in var.backfill_source_bucket_arns : can(regex("^arn:aws[a-z-]*:s3:::[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", a))])
    error_message = "backfill_source_bucket_arns must be bucket ARNs such as arn:aws:s3:::my-history (no object path, no wildcard)."
  }
}

variable "noncurrent_version_retention_days" {
  description = "Days S3 keeps overwritten or deleted object versions in the warehouse and artifact buckets."
  type        = number
  default     = 30

  validation {
    condition     = var.noncurrent_version_retention_days >= 1
    error_message = "noncurrent_version_retention_days must be at least 1."
  }
}

variable "jwt_issuer" {
  description = "Issuer (iss) of the JWTs the API accepts, e.g. https://cognito-idp.<region>.amazonaws.com/<pool-id>."
  type        = string

  validation {
    condition     = can(regex("^https://[^\\s]+$", var.jwt_issuer))
    error_message = "jwt_issuer must be an https:// URL (API Gateway fetches the issuer's keys from it)."
  }
}

variable "jwt_audience" {
  description = "Audiences (aud, or client_id for Cognito access tokens) the API accepts."
  type        = list(string)

  validation {
    condition     = length(var.jwt_audience) > 0 && alltrue([for a in var.jwt_audience : length(trimspace(a)) > 0])
    error_message = "jwt_audience must list at least one non-empty audience."
  }
}

variable "admin_principals" {
  description = "Principals (JWT sub) with every privilege (TRIBUTARY_ADMINS)."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for p in var.admin_principals : length(trimspace(p)) > 0 && !can(regex(",", p))])
    error_message = "admin_principals must be non-empty and contain no commas."
  }
}

variable "api_throttling_burst_limit" {
  description = "Burst request limit of the API's default stage."
  type        = number
  default     = 200

  validation {
    condition     = var.api_throttling_burst_limit >= 1
    error_message = "api_throttling_burst_limit must be at least 1."
  }
}

variable "api_throttling_rate_limit" {
  description = "Steady requests per second of the API's default stage."
  type        = number
  default     = 100

  validation {
    condition     = var.api_throttling_rate_limit >= 1
    error_message = "api_throttling_rate_limit must be at least 1."
  }
}

variable "db_engine_version" {
  description = "Aurora PostgreSQL engine version (Serverless v2 capable)."
  type        = string
  default     = "16.6"

  validation {
    condition     = can(regex("^1[3-9]\\.[0-9]+$", var.db_engine_version))
    error_message = "db_engine_version must be an Aurora PostgreSQL version such as 16.6."
  }
}

variable "db_min_capacity" {
  description = "Minimum Aurora Serverless v2 capacity in ACUs (0 lets an idle cluster pause)."
  type        = number
  default     = 0.5

  validation {
    condition     = var.db_min_capacity >= 0 && var.db_min_capacity <= 256
    error_message = "db_min_capacity must be between 0 and 256 ACUs."
  }
}

variable "db_max_capacity" {
  description = "Maximum Aurora Serverless v2 capacity in ACUs."
  type        = number
  default     = 4

  validation {
    condition     = var.db_max_capacity >= 1 && var.db_max_capacity <= 256 && var.db_max_capacity >= var.db_min_capacity
    error_message = "db_max_capacity must be between 1 and 256 ACUs and not below db_min_capacity."
  }
}

variable "db_instance_count" {
  description = "Aurora Serverless v2 instances: 1, or 2 for a failover reader in another zone."
  type        = number
  default     = 1

  validation {
    condition     = contains([1, 2, 3], var.db_instance_count)
    error_message = "db_instance_count must be 1, 2 or 3."
  }
}

variable "db_deletion_protection" {
  description = "Protect the registry database from deletion (and take a final snapshot when it is deleted)."
  type        = bool
  default     = true
}

variable "db_backup_retention_days" {
  description = "Days Aurora keeps automated backups of the registry."
  type        = number
  default     = 7

  validation {
    condition     = var.db_backup_retention_days >= 1 && var.db_backup_retention_days <= 35
    error_message = "db_backup_retention_days must be between 1 and 35."
  }
}
