output "proxy_endpoint" {
  description = "Host name of the RDS Proxy the functions connect to."
  value       = aws_db_proxy.this.endpoint
}

output "database_name" {
  description = "Name of the registry database."
  value       = local.database_name
}

output "secret_arn" {
  description = "ARN of the Secrets Manager secret holding the database username and password."
  value       = aws_secretsmanager_secret.credentials.arn
}
