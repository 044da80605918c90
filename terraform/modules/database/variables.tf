variable "name" {
  description = "Prefix of every resource name."
  type        = string
}

variable "vpc_id" {
  description = "VPC of the database and its proxy."
  type        = string
}

variable "subnet_ids" {
  description = "Private subnets (at least two availability zones) of the database and its proxy."
  type        = list(string)

  validation {
    condition     = length(var.subnet_ids) >= 2
    error_message = "subnet_ids must name subnets in at least two availability zones."
  }
}

variable "client_security_group_id" {
  description = "Security group of the clients (the functions) allowed to reach the proxy."
  type        = string
}

variable "kms_key_arn" {
  description = "KMS key encrypting the storage and the credentials secret."
  type        = string
}

variable "engine_version" {
  description = "Aurora PostgreSQL engine version."
  type        = string
}

variable "min_capacity" {
  description = "Minimum Aurora capacity units."
  type        = number
}

variable "max_capacity" {
  description = "Maximum Aurora capacity units."
  type        = number
}

variable "instance_count" {
  description = "Number of Aurora Serverless v2 instances (a second one is a failover reader)."
  type        = number
}

variable "deletion_protection" {
  description = "Protect the cluster from deletion."
  type        = bool
}

variable "backup_retention_days" {
  description = "Days automated backups are kept."
  type        = number
}
