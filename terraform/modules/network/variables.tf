variable "name" {
  description = "Prefix of every resource name."
  type        = string
}

variable "vpc_cidr" {
  description = "CIDR block of the VPC; private and public subnets are carved out of it."
  type        = string

  validation {
    condition     = can(cidrhost(var.vpc_cidr, 0)) && tonumber(split("/", var.vpc_cidr)[1]) <= 20
    error_message = "vpc_cidr must be an IPv4 CIDR block of /20 or larger, e.g. 10.40.0.0/16."
  }
}

variable "availability_zone_count" {
  description = "Number of availability zones to spread the subnets over."
  type        = number

  validation {
    condition     = var.availability_zone_count >= 2 && var.availability_zone_count <= 3
    error_message = "availability_zone_count must be 2 or 3 (Aurora and RDS Proxy need two)."
  }
}

variable "enable_nat_gateway" {
  description = "Create public subnets and one NAT gateway so the functions reach Kafka and schema registries outside the VPC."
  type        = bool
}

variable "kafka_ports" {
  description = "TCP port range of the Kafka brokers the functions connect to."
  type        = object({ from = number, to = number })
}

variable "schema_registry_ports" {
  description = "TCP ports of the schema registries the functions connect to, besides 443."
  type        = list(number)
}

variable "interface_endpoints" {
  description = "AWS services reached through interface endpoints instead of the NAT gateway (e.g. secretsmanager, lambda, sts)."
  type        = list(string)

  validation {
    condition     = alltrue([for s in var.interface_endpoints : can(regex("^[a-z0-9.-]+$", s))])
    error_message = "interface_endpoints must be service names such as secretsmanager, lambda or sts."
  }
}
